/* cranfield._native.measure_kernels: the heaviest retrieval measures as one pass over a ranked view.
 *
 * The compiled counterparts of the numpy kernels in cranfield.measures (gain.py, ndcg.py, ap.py,
 * bpref.py, interpolated.py, _running.py). Each function walks the view's per-query segments once
 * (rel: int64 relevance codes in rank order, offsets: int64, n_queries + 1) and does the numpy
 * kernel's floating-point operations in the same order, so the values are bit for bit the same:
 * np.bincount and np.add.accumulate add sequentially in index order (bincount from 0.0, accumulate
 * from the first value). Logarithms are never taken here: `logs` is numpy's
 * log2(arange(2, size + 2)) (the discount of rank i + 1 is logs[i]; log2(2 + k) of a whole k is
 * logs[k]), and G's arguments go back to numpy for their log2 (numpy's SIMD log2 may differ from
 * libm's in the last bit). FP contraction (a*b+c fused) is off: -std=c11 under GCC, the pragma under
 * clang.
 *
 * Gains: the gain of a code r >= 0 is level_gain[lower_bound(level_values, r)] (np.searchsorted),
 * 0 for r < 0; a code above every level is an IndexError, as numpy's indexing would raise.
 * Arrays of a wrong type or length raise TypeError / ValueError. All loops run without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__clang__)
#pragma clang fp contract(off)
#endif

#define UNJUDGED (-2)
#define INFAP_EPSILON 0.00001
#define DENSE_LEVELS 4096 /* levels up to this are looked up in a table, larger ones by binary search */
#define MAX_HELD 8

/* ------------------------------------------------------------------------------ arrays */

typedef struct {
    Py_buffer b[MAX_HELD];
    int n;
} held;

static void release(held *h)
{
    for (int i = 0; i < h->n; i++)
        PyBuffer_Release(&h->b[i]);
    h->n = 0;
}

/* The items of a C-contiguous 1-d int64 ('q') or float64 ('d') buffer; expect >= 0: its length. */
static const void *take(held *h, PyObject *obj, char kind, const char *name, Py_ssize_t expect, Py_ssize_t *len)
{
    Py_buffer *b = &h->b[h->n];
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    h->n++;
    const char *f = b->format ? b->format : "B";
    if (*f == '@' || *f == '=' || (PY_LITTLE_ENDIAN && *f == '<'))
        f++;
    int ok = b->itemsize == 8 && b->ndim <= 1 && f[0] != '\0' && f[1] == '\0' &&
             (kind == 'd' ? f[0] == 'd' : (f[0] == 'q' || f[0] == 'l'));
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "measure_kernels: %s must be a contiguous %s array", name,
                     kind == 'd' ? "float64" : "int64");
        return NULL;
    }
    Py_ssize_t n = b->len / 8;
    if (expect >= 0 && n != expect) {
        PyErr_Format(PyExc_ValueError, "measure_kernels: %s has %zd items, expected %zd", name, n, expect);
        return NULL;
    }
    if (len)
        *len = n;
    return b->buf;
}

static PyObject *new_array(Py_ssize_t n, void **data)
{
    PyObject *out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (out)
        *data = PyByteArray_AS_STRING(out);
    return out;
}

/* The segments: rel (n codes) and offsets (n_queries + 1, from >= 0, non-decreasing, to <= n). */
typedef struct {
    const int64_t *rel, *off;
    Py_ssize_t n, nq;
    int64_t longest;
} segs;

static int take_segs(segs *s, held *h, PyObject *rel, PyObject *offsets)
{
    Py_ssize_t n_off;
    if (!(s->rel = take(h, rel, 'q', "rel", -1, &s->n)) || !(s->off = take(h, offsets, 'q', "offsets", -1, &n_off)))
        return -1;
    s->nq = n_off - 1;
    s->longest = 0;
    int ok = n_off >= 1 && s->off[0] >= 0 && s->off[s->nq] <= s->n;
    for (Py_ssize_t q = 0; ok && q < s->nq; q++) {
        ok = s->off[q + 1] >= s->off[q];
        if (s->off[q + 1] - s->off[q] > s->longest)
            s->longest = s->off[q + 1] - s->off[q];
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "measure_kernels: offsets must rise from >= 0 to at most len(rel)");
        return -1;
    }
    return 0;
}

/* Flat ideal gains of ideal_len[q] items per query; *longest: the longest list. */
static const double *take_ideal(held *h, PyObject *ideal, PyObject *ideal_len, Py_ssize_t nq, const int64_t **len,
                                int64_t *longest)
{
    Py_ssize_t n;
    const double *values = take(h, ideal, 'd', "ideal", -1, &n);
    if (!values || !(*len = take(h, ideal_len, 'q', "ideal_len", nq, NULL)))
        return NULL;
    int64_t total = 0;
    *longest = 0;
    for (Py_ssize_t q = 0; q < nq; q++) {
        if ((*len)[q] < 0 || (*len)[q] > n - total) {
            PyErr_SetString(PyExc_ValueError, "measure_kernels: ideal_len must be >= 0 and sum to len(ideal)");
            return NULL;
        }
        total += (*len)[q];
        *longest = (*len)[q] > *longest ? (*len)[q] : *longest;
    }
    if (total != n) {
        PyErr_SetString(PyExc_ValueError, "measure_kernels: ideal_len must be >= 0 and sum to len(ideal)");
        return NULL;
    }
    return values;
}

static const double *take_logs(held *h, PyObject *logs, int64_t needed)
{
    Py_ssize_t n;
    const double *values = take(h, logs, 'd', "logs", -1, &n);
    if (values && n < needed) {
        PyErr_Format(PyExc_ValueError, "measure_kernels: logs has %zd items, %lld needed", n, (long long)needed);
        return NULL;
    }
    return values;
}

/* ------------------------------------------------------------------------------ gains */

typedef struct {
    const int64_t *values;
    const double *gain;
    Py_ssize_t m;
    int64_t top;  /* the highest level; a code above it has no gain (IndexError) */
    double *dense; /* gain of every code -2 .. top at dense[code + 2] (0 for -2, -1), or NULL */
} gains;

static int take_gains(gains *g, held *h, PyObject *values, PyObject *gain)
{
    g->dense = NULL;
    if (!(g->values = take(h, values, 'q', "level_values", -1, &g->m)) ||
        !(g->gain = take(h, gain, 'd', "level_gain", g->m, NULL)))
        return -1;
    for (Py_ssize_t i = 1; i < g->m; i++)
        if (g->values[i] <= g->values[i - 1]) {
            PyErr_SetString(PyExc_ValueError, "measure_kernels: level_values must be strictly ascending");
            return -1;
        }
    g->top = g->m ? g->values[g->m - 1] : -1;
    if (g->top >= 0 && g->top < DENSE_LEVELS) {
        g->dense = PyMem_Malloc((size_t)(g->top + 3) * sizeof(double));
        if (!g->dense) {
            PyErr_NoMemory();
            return -1;
        }
        g->dense[0] = g->dense[1] = 0.0;
        Py_ssize_t j = 0;
        for (int64_t v = 0; v <= g->top; v++) {
            while (g->values[j] < v)
                j++;
            g->dense[v + 2] = g->gain[j];
        }
    }
    return 0;
}

static inline double gain_of(const gains *g, int64_t r, int *bad)
{
    const uint64_t u = (uint64_t)r + 2; /* codes -2 .. top: one predictable test, no branch on the code */
    if (g->dense && u <= (uint64_t)g->top + 2)
        return g->dense[u];
    if (r < 0)
        return 0.0;
    if (r > g->top) {
        *bad = 1;
        return 0.0;
    }
    Py_ssize_t lo = 0, hi = g->m;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (g->values[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return g->gain[lo];
}

static PyObject *finish(PyObject *out, gains *g, int bad)
{
    PyMem_Free(g->dense);
    g->dense = NULL;
    if (out && bad) {
        Py_DECREF(out);
        PyErr_SetString(PyExc_IndexError, "measure_kernels: a relevance code above every judged level");
        return NULL;
    }
    return out;
}

/* ------------------------------------------------------------------------------ running sums */

/* out[0] = 0, then per segment the running sums of values (from its first value). */
static PyObject *segment_cumsum(PyObject *self, PyObject *args)
{
    PyObject *values_obj, *lengths_obj, *out = NULL;
    held h = {0};
    Py_ssize_t n, nq;
    const double *values;
    const int64_t *lengths;
    double *o;
    if (!PyArg_ParseTuple(args, "OO", &values_obj, &lengths_obj))
        return NULL;
    if (!(values = take(&h, values_obj, 'd', "values", -1, &n)) ||
        !(lengths = take(&h, lengths_obj, 'q', "lengths", -1, &nq)))
        goto done;
    int64_t total = 0;
    for (Py_ssize_t q = 0; q < nq; q++) {
        if (lengths[q] < 0 || lengths[q] > n - total) {
            PyErr_SetString(PyExc_ValueError, "measure_kernels: lengths must be >= 0 and sum to len(values)");
            goto done;
        }
        total += lengths[q];
    }
    if (total != n) {
        PyErr_SetString(PyExc_ValueError, "measure_kernels: lengths must be >= 0 and sum to len(values)");
        goto done;
    }
    if (!(out = new_array(n + 1, (void **)&o)))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    o[0] = 0.0;
    Py_ssize_t i = 0;
    for (Py_ssize_t q = 0; q < nq; q++)
        for (int64_t k = 0; k < lengths[q]; k++, i++)
            o[i + 1] = k ? o[i] + values[i] : values[i];
    Py_END_ALLOW_THREADS
done:
    release(&h);
    return out;
}

/* ------------------------------------------------------------------------------ the gain pass */

typedef struct {
    segs s;
    gains g;
    const double *logs, *ideal;
    const int64_t *ideal_len, *num_rel;
} gain_args;

/* One query's state in the gain pass: the running DCG (from the first document's term, as
 * np.add.accumulate), the running ideal DCG (j terms), G's running gain and cost, nDCGRel's and
 * RnDCG's sums; next: RnDCG's next R-level, a rank where the ideal gain changes, or L. */
typedef struct {
    const double *id, *logs;
    int64_t L, j, next, rel_ret, cost_ranks;
    double dcg, idcg, gain_sum, cost_sum, rel_total, r_total, r_count;
} query_state;

static inline void ideal_to(query_state *t, int64_t upto)
{
    for (; t->j < upto; t->j++)
        t->idcg = t->j ? t->idcg + t->id[t->j] / t->logs[t->j] : t->id[t->j] / t->logs[t->j];
}

/* RnDCG at the R-level t->next (the ideal gain changes there, or it is L), then the next one. */
static inline void r_level(query_state *t)
{
    ideal_to(t, t->next);
    if (t->idcg > 0) {
        t->r_total += t->dcg / t->idcg;
        t->r_count += 1;
    }
    int64_t p = t->next + 1;
    while (p < t->L && t->id[p] == t->id[p - 1])
        p++;
    t->next = t->next < t->L ? p : INT64_MAX;
}

/* G's running cost to `ranks` ranks: max(ideal gain, 1) in the ideal list, 1 past it (added one by
 * one, or at once where that is the same: an integer sum staying below 2^53). */
static inline void cost_to(query_state *t, int64_t ranks)
{
    for (; t->cost_ranks < ranks && t->cost_ranks < t->L; t->cost_ranks++) {
        double x = t->id[t->cost_ranks];
        t->cost_sum += (x >= 1.0 || x != x) ? x : 1.0;
    }
    int64_t k = ranks - t->cost_ranks;
    if (k <= 0)
        return;
    if (t->cost_sum >= 0 && t->cost_sum + (double)k <= 9007199254740992.0 && t->cost_sum == (double)(int64_t)t->cost_sum)
        t->cost_sum += (double)k;
    else
        for (int64_t i = 0; i < k; i++)
            t->cost_sum += 1.0;
    t->cost_ranks = ranks;
}

typedef struct {
    double *dcg, *ndcg_rel, *rndcg, *g_arg, *g_gain, *sum_ideal;
    int64_t *g_q;
    Py_ssize_t g_n;
} gain_out;

static void gain_query(const gain_args *a, Py_ssize_t q, const double *id, gain_out *o, int *bad)
{
    const int64_t off = a->s.off[q], n = a->s.off[q + 1] - off, L = a->ideal_len[q], top = a->g.top;
    const int64_t *rel = a->s.rel + off;
    const double *dense = a->g.dense, *logs = a->logs;
    double *dcg = o->dcg + off + 1, *g_arg = o->g_arg, *g_gain = o->g_gain;
    int64_t *g_q = o->g_q;
    Py_ssize_t g_n = o->g_n; /* locals: the compiler need not reload them after each store */
    int unknown = 0;
    query_state t = {id, logs, L, 0, L > 0 ? 0 : INT64_MAX, 0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (L > 0)
        t.next = 0, r_level(&t); /* rank 0 is no R-level: finds the first one (no ratio at 0 terms) */
    for (int64_t i = 0; i < n; i++) {
        const uint64_t u = (uint64_t)rel[i] + 2;
        const double gi = (dense && u <= (uint64_t)top + 2) ? dense[u] : gain_of(&a->g, rel[i], &unknown);
        if (gi != 0 || t.dcg == 0) { /* adding +0.0 changes nothing but a sum of -0.0 */
            double d = gi != 0 ? gi / logs[i] : 0.0;
            t.dcg = i ? t.dcg + d : d;
            t.gain_sum = i ? t.gain_sum + gi : gi;
        }
        dcg[i] = t.dcg;
        if (gi != 0) {
            cost_to(&t, i + 1);
            g_arg[g_n] = 2.0 + t.cost_sum - t.gain_sum;
            g_gain[g_n] = gi;
            g_q[g_n++] = q;
        }
        if (gi > 0 && L > 0) {
            ideal_to(&t, i + 1 < L ? i + 1 : L);
            t.rel_total += t.dcg / t.idcg;
            t.rel_ret++;
        }
        while (t.next == i + 1)
            r_level(&t);
    }
    o->g_n = g_n;
    *bad |= unknown;
    while (t.next != INT64_MAX) /* R-levels past the ranking: the whole ranking's DCG */
        r_level(&t);
    ideal_to(&t, L);
    if (L > 0 && L + 1 < n) { /* trec_eval's RnDCG adds the whole ranking's nDCG */
        t.r_total += t.idcg != 0 ? t.dcg / t.idcg : 0.0;
        t.r_count += 1;
    }
    double value = t.r_count != 0 ? t.r_total / t.r_count : 0.0;
    o->rndcg[q] = a->num_rel[q] > 0 ? value : 0.0;
    double missing = (double)(L - t.rel_ret) * t.dcg, total = t.rel_total + (t.idcg != 0 ? missing / t.idcg : 0.0);
    o->ndcg_rel[q] = total > 0 ? (L != 0 ? total / (double)L : 0.0) : 0.0;
    double sum = 0.0;
    for (int64_t k = 0; k < L; k++)
        sum += id[k];
    o->sum_ideal[q] = sum;
}
/* gain_pass(rel, offsets, level_values, level_gain, logs, ideal, ideal_len, num_rel) -> (dcg, ndcg_rel,
 * rndcg, g_args, g_gains, g_queries, sum_ideal): dcg: 0, then the running DCG of every query (ndcg.py);
 * nDCGRel and RnDCG per query; per document with a non-zero gain, G's log2 argument
 * 2 + running cost - running gain, its gain and query, and per query the sum of the ideal gains
 * (G = Σ gains / log2(args) / sum_ideal, numpy taking the log2: gain.py). */
static PyObject *gain_pass(PyObject *self, PyObject *args)
{
    PyObject *rel, *offsets, *values, *gain, *logs, *ideal, *ideal_len, *num_rel, *result = NULL;
    PyObject *arrays[7] = {NULL};
    gain_args a;
    gain_out o;
    held h = {0};
    int64_t longest;
    int bad = 0;
    a.g.dense = NULL;
    if (!PyArg_ParseTuple(args, "OOOOOOOO", &rel, &offsets, &values, &gain, &logs, &ideal, &ideal_len, &num_rel))
        return NULL;
    if (take_segs(&a.s, &h, rel, offsets) < 0 || take_gains(&a.g, &h, values, gain) < 0 ||
        !(a.ideal = take_ideal(&h, ideal, ideal_len, a.s.nq, &a.ideal_len, &longest)) ||
        !(a.logs = take_logs(&h, logs, longest > a.s.longest ? longest : a.s.longest)) ||
        !(a.num_rel = take(&h, num_rel, 'q', "num_rel", a.s.nq, NULL)))
        goto done;
    Py_ssize_t n = a.s.n, nq = a.s.nq;
    void **slots[7] = {(void **)&o.dcg, (void **)&o.ndcg_rel, (void **)&o.rndcg, (void **)&o.g_arg,
                       (void **)&o.g_gain, (void **)&o.g_q, (void **)&o.sum_ideal};
    Py_ssize_t sizes[7] = {n + 1, nq, nq, n, n, n, nq};
    for (int i = 0; i < 7; i++)
        if (!(arrays[i] = new_array(sizes[i], slots[i])))
            goto done;
    o.g_n = 0;
    Py_BEGIN_ALLOW_THREADS
    o.dcg[0] = 0.0; /* every other item but those past the last query is written below */
    for (Py_ssize_t i = a.s.off[nq]; i < n; i++)
        o.dcg[i + 1] = 0.0;
    Py_ssize_t start = 0;
    for (Py_ssize_t q = 0; q < nq; q++) {
        gain_query(&a, q, a.ideal + start, &o, &bad);
        start += a.ideal_len[q];
    }
    Py_END_ALLOW_THREADS
    for (int i = 3; i < 6; i++)
        if (PyByteArray_Resize(arrays[i], o.g_n * 8) < 0)
            goto done;
    result = PyTuple_Pack(7, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4], arrays[5], arrays[6]);
done:
    for (int i = 0; i < 7; i++)
        Py_XDECREF(arrays[i]);
    release(&h);
    return finish(result, &a.g, bad);
}

/* ------------------------------------------------------------------------------ the binary pass */

typedef struct {
    double *infap, *bpref, *bing, *iprec;
    int64_t *rel_ret, *nonrel_ret;
    Py_ssize_t iprec_n;
} binary_out;

/* One query: infAP (ap.py), bpref (bpref.py) and binG (gain.py) as Σ terms / R over its relevant
 * documents, the precisions at them with their suffix maxima (IPrec, interpolated.py), the counts. */
static void binary_query(const segs *s, Py_ssize_t q, int64_t level, int64_t R, int64_t N, const double *logs,
                         binary_out *o)
{
    const int64_t off = s->off[q], n = s->off[q + 1] - off;
    const double denominator = (double)(N < R ? N : R);
    const Py_ssize_t first = o->iprec_n;
    int64_t rel_so_far = 0, nonrel = 0, unjudged = 0;
    double infap = 0.0, bpref = 0.0, bing = 0.0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t r = s->rel[off + i];
        if (r < level) {
            nonrel += r >= 0;
            unjudged += r == UNJUDGED;
            continue;
        }
        rel_so_far++;
        const double j = (double)i, rs = (double)rel_so_far, nr = (double)nonrel, un = (double)unjudged;
        infap += i == 0 ? 1.0 : 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rs - 1 + nr + un) / j) *
                                                      ((rs - 1 + INFAP_EPSILON) / (rs - 1 + nr + 2 * INFAP_EPSILON));
        bpref += nonrel > 0 ? 1.0 - (double)(nonrel < R ? nonrel : R) / denominator : 1.0;
        bing += 1.0 / logs[i + 1 - rel_so_far];
        o->iprec[o->iprec_n++] = (double)rel_so_far / ((double)i + 1.0);
    }
    for (Py_ssize_t m = o->iprec_n - 1; m > first; m--)
        if (o->iprec[m] > o->iprec[m - 1])
            o->iprec[m - 1] = o->iprec[m];
    o->infap[q] = R != 0 ? infap / (double)R : 0.0;
    o->bpref[q] = R != 0 ? bpref / (double)R : 0.0;
    o->bing[q] = R != 0 ? bing / (double)R : 0.0;
    o->rel_ret[q] = rel_so_far;
    o->nonrel_ret[q] = nonrel;
}

/* binary_pass(rel, offsets, level, num_rel, num_nonrel, logs) -> (infap, bpref, bing, num_rel_ret,
 * num_nonrel_judged_ret, iprec): per query, the int64 counts; iprec: per relevant document in rank
 * order, the highest precision at or below it in its query. */
static PyObject *binary_pass(PyObject *self, PyObject *args)
{
    PyObject *rel, *offsets, *num_rel_obj, *num_nonrel_obj, *logs_obj, *result = NULL;
    PyObject *arrays[6] = {NULL};
    segs s;
    binary_out o;
    held h = {0};
    long long level;
    const int64_t *num_rel, *num_nonrel;
    const double *logs;
    if (!PyArg_ParseTuple(args, "OOLOOO", &rel, &offsets, &level, &num_rel_obj, &num_nonrel_obj, &logs_obj))
        return NULL;
    if (take_segs(&s, &h, rel, offsets) < 0 || !(num_rel = take(&h, num_rel_obj, 'q', "num_rel", s.nq, NULL)) ||
        !(num_nonrel = take(&h, num_nonrel_obj, 'q', "num_nonrel", s.nq, NULL)) ||
        !(logs = take_logs(&h, logs_obj, s.longest)))
        goto done;
    void **slots[6] = {(void **)&o.infap, (void **)&o.bpref, (void **)&o.bing, (void **)&o.rel_ret,
                       (void **)&o.nonrel_ret, (void **)&o.iprec};
    for (int i = 0; i < 6; i++)
        if (!(arrays[i] = new_array(i < 5 ? s.nq : s.n, slots[i])))
            goto done;
    o.iprec_n = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = 0; q < s.nq; q++)
        binary_query(&s, q, level, num_rel[q], num_nonrel[q], logs, &o);
    Py_END_ALLOW_THREADS
    if (PyByteArray_Resize(arrays[5], o.iprec_n * 8) < 0)
        goto done;
    result = PyTuple_Pack(6, arrays[0], arrays[1], arrays[2], arrays[3], arrays[4], arrays[5]);
done:
    for (int i = 0; i < 6; i++)
        Py_XDECREF(arrays[i]);
    release(&h);
    return result;
}

/* ------------------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"segment_cumsum", segment_cumsum, METH_VARARGS,
     "segment_cumsum(values, lengths) -> float64 bytearray: 0, then each segment's running sums."},
    {"gain_pass", gain_pass, METH_VARARGS,
     "gain_pass(rel, offsets, level_values, level_gain, logs, ideal, ideal_len, num_rel) -> (dcg, ndcg_rel, "
     "rndcg, g_args, g_gains, g_queries, sum_ideal)."},
    {"binary_pass", binary_pass, METH_VARARGS,
     "binary_pass(rel, offsets, level, num_rel, num_nonrel, logs) -> (infap, bpref, bing, num_rel_ret, "
     "num_nonrel_judged_ret, iprec)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "cranfield._native.measure_kernels",
    "The heaviest retrieval measures as one pass over a ranked view (see measure_kernels.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_measure_kernels(void)
{
    return PyModule_Create(&module);
}
