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
    double *dense; /* gain of every code 0 .. top, or NULL */
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
        g->dense = PyMem_Malloc((size_t)(g->top + 1) * sizeof(double));
        if (!g->dense) {
            PyErr_NoMemory();
            return -1;
        }
        Py_ssize_t j = 0;
        for (int64_t v = 0; v <= g->top; v++) {
            while (g->values[j] < v)
                j++;
            g->dense[v] = g->gain[j];
        }
    }
    return 0;
}

static inline double gain_of(const gains *g, int64_t r, int *bad)
{
    if (r < 0)
        return 0.0;
    if (r > g->top) {
        *bad = 1;
        return 0.0;
    }
    if (g->dense)
        return g->dense[r];
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

/* dcg_running(rel, offsets, level_values, level_gain, logs): out[0] = 0, then per query the running
 * sums of gain / logs[rank - 1] (0 where the gain is 0), from the first document's (ndcg.py). */
static PyObject *dcg_running(PyObject *self, PyObject *args)
{
    PyObject *rel, *offsets, *values, *gain, *logs_obj, *out = NULL;
    held h = {0};
    segs s;
    gains g = {0};
    const double *logs;
    double *o;
    int bad = 0;
    if (!PyArg_ParseTuple(args, "OOOOO", &rel, &offsets, &values, &gain, &logs_obj))
        return NULL;
    if (take_segs(&s, &h, rel, offsets) < 0 || take_gains(&g, &h, values, gain) < 0 ||
        !(logs = take_logs(&h, logs_obj, s.longest)) || !(out = new_array(s.n + 1, (void **)&o)))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    memset(o, 0, (size_t)(s.n + 1) * sizeof(double));
    for (Py_ssize_t q = 0; q < s.nq; q++) {
        const int64_t a = s.off[q], n = s.off[q + 1] - a;
        double sum = 0.0;
        for (int64_t i = 0; i < n; i++) {
            double gi = gain_of(&g, s.rel[a + i], &bad);
            double d = gi != 0 ? gi / logs[i] : 0.0;
            sum = i ? sum + d : d;
            o[a + i + 1] = sum;
        }
    }
    Py_END_ALLOW_THREADS
done:
    release(&h);
    return finish(out, &g, bad);
}

/* ------------------------------------------------------------------------------ G (gain.py) */

typedef struct {
    double *arg, *gain, *sum_ideal;
    int64_t *q;
} g_out;

/* Per document with a non-zero gain: 2 + running cost - running gain, its gain and query; per query
 * the sum of its ideal gains (from 0.0). Returns the number of documents written. */
static Py_ssize_t g_loop(const segs *s, const gains *g, const double *ideal, const int64_t *ideal_len, g_out *o,
                         int write, int *bad)
{
    Py_ssize_t k = 0, start = 0;
    for (Py_ssize_t q = 0; q < s->nq; q++) {
        const int64_t a = s->off[q], n = s->off[q + 1] - a, L = ideal_len[q];
        const double *id = ideal + start;
        double gain_sum = 0.0, cost_sum = 0.0, t = 0.0;
        start += L;
        for (int64_t i = 0; i < n; i++) {
            double gi = gain_of(g, s->rel[a + i], bad);
            double cost = i < L ? ((id[i] >= 1.0 || id[i] != id[i]) ? id[i] : 1.0) : 1.0;
            gain_sum = i ? gain_sum + gi : gi;
            cost_sum = i ? cost_sum + cost : cost;
            if (gi != 0) {
                if (write) {
                    o->arg[k] = 2.0 + cost_sum - gain_sum;
                    o->gain[k] = gi;
                    o->q[k] = q;
                }
                k++;
            }
        }
        if (write) {
            for (int64_t j = 0; j < L; j++)
                t += id[j];
            o->sum_ideal[q] = t;
        }
    }
    return k;
}

/* g(rel, offsets, level_values, level_gain, ideal, ideal_len) -> (args, gains, queries, sum_ideal):
 * G = Σ_q gains / log2(args) / sum_ideal, the log2 taken by numpy. */
static PyObject *g_measure(PyObject *self, PyObject *args)
{
    PyObject *rel, *offsets, *values, *gain, *ideal_obj, *len_obj, *result = NULL;
    PyObject *arrays[4] = {NULL, NULL, NULL, NULL};
    held h = {0};
    segs s;
    gains g = {0};
    const double *ideal;
    const int64_t *ideal_len;
    int64_t longest;
    g_out o;
    int bad = 0;
    Py_ssize_t k = 0;
    if (!PyArg_ParseTuple(args, "OOOOOO", &rel, &offsets, &values, &gain, &ideal_obj, &len_obj))
        return NULL;
    if (take_segs(&s, &h, rel, offsets) < 0 || take_gains(&g, &h, values, gain) < 0 ||
        !(ideal = take_ideal(&h, ideal_obj, len_obj, s.nq, &ideal_len, &longest)))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    k = g_loop(&s, &g, ideal, ideal_len, &o, 0, &bad);
    Py_END_ALLOW_THREADS
    if (!(arrays[0] = new_array(k, (void **)&o.arg)) || !(arrays[1] = new_array(k, (void **)&o.gain)) ||
        !(arrays[2] = new_array(k, (void **)&o.q)) || !(arrays[3] = new_array(s.nq, (void **)&o.sum_ideal)))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    g_loop(&s, &g, ideal, ideal_len, &o, 1, &bad);
    Py_END_ALLOW_THREADS
    result = PyTuple_Pack(4, arrays[0], arrays[1], arrays[2], arrays[3]);
done:
    for (int i = 0; i < 4; i++)
        Py_XDECREF(arrays[i]);
    release(&h);
    return finish(result, &g, bad);
}

/* ------------------------------------------------------------------------------ nDCGRel, RnDCG (ndcg.py) */

typedef struct {
    segs s;
    gains g;
    const double *logs, *ideal;
    const int64_t *ideal_len, *num_rel;
} gain_args;

/* Parse (rel, offsets, level_values, level_gain, logs, ideal, ideal_len[, num_rel]); 0 or -1. */
static int take_gain_args(gain_args *a, held *h, PyObject *args, int with_num_rel)
{
    PyObject *rel, *offsets, *values, *gain, *logs, *ideal, *ideal_len, *num_rel = NULL;
    int64_t longest;
    a->g.dense = NULL;
    if (!PyArg_ParseTuple(args, with_num_rel ? "OOOOOOOO" : "OOOOOOO", &rel, &offsets, &values, &gain, &logs, &ideal,
                          &ideal_len, &num_rel))
        return -1;
    if (take_segs(&a->s, h, rel, offsets) < 0 || take_gains(&a->g, h, values, gain) < 0 ||
        !(a->ideal = take_ideal(h, ideal, ideal_len, a->s.nq, &a->ideal_len, &longest)) ||
        !(a->logs = take_logs(h, logs, longest > a->s.longest ? longest : a->s.longest)))
        return -1;
    a->num_rel = NULL;
    if (with_num_rel && !(a->num_rel = take(h, num_rel, 'q', "num_rel", a->s.nq, NULL)))
        return -1;
    return 0;
}

/* The running ideal DCG (from the first term), advanced to `upto` terms. */
static inline void ideal_to(const double *id, const double *logs, int64_t upto, int64_t *j, double *idcg)
{
    for (; *j < upto; (*j)++)
        *idcg = *j ? *idcg + id[*j] / logs[*j] : id[*j] / logs[*j];
}

static void ndcg_rel_loop(const gain_args *a, double *out, int *bad)
{
    Py_ssize_t start = 0;
    for (Py_ssize_t q = 0; q < a->s.nq; q++) {
        const int64_t off = a->s.off[q], n = a->s.off[q + 1] - off, L = a->ideal_len[q];
        const double *id = a->ideal + start;
        double dcg = 0.0, idcg = 0.0, total = 0.0;
        int64_t j = 0, rel_ret = 0;
        start += L;
        for (int64_t i = 0; i < n; i++) {
            double gi = gain_of(&a->g, a->s.rel[off + i], bad);
            double d = gi != 0 ? gi / a->logs[i] : 0.0;
            dcg = i ? dcg + d : d;
            if (gi > 0 && L > 0) {
                ideal_to(id, a->logs, i + 1 < L ? i + 1 : L, &j, &idcg);
                total += dcg / idcg;
                rel_ret++;
            }
        }
        ideal_to(id, a->logs, L, &j, &idcg);
        double missing = (double)(L - rel_ret) * dcg;
        total = total + (idcg != 0 ? missing / idcg : 0.0);
        out[q] = total > 0 ? (L != 0 ? total / (double)L : 0.0) : 0.0;
    }
}

static void rndcg_loop(const gain_args *a, double *out, int *bad)
{
    Py_ssize_t start = 0;
    for (Py_ssize_t q = 0; q < a->s.nq; q++) {
        const int64_t off = a->s.off[q], n = a->s.off[q + 1] - off, L = a->ideal_len[q];
        const double *id = a->ideal + start;
        double dcg = 0.0, idcg = 0.0, total = 0.0, count = 0.0;
        int64_t i = 0, j = 0;
        start += L;
        for (int64_t b = 1; b <= L; b++) { /* the ranks where the ideal gain changes, then L */
            if (b < L && id[b] == id[b - 1])
                continue;
            for (; i < b && i < n; i++) {
                double gi = gain_of(&a->g, a->s.rel[off + i], bad);
                dcg = dcg + (gi != 0 ? gi / a->logs[i] : 0.0);
            }
            ideal_to(id, a->logs, b, &j, &idcg);
            if (idcg > 0) {
                total += dcg / idcg;
                count += 1;
            }
        }
        if (L > 0 && L + 1 < n) { /* trec_eval adds the whole ranking's nDCG */
            for (; i < n; i++) {
                double gi = gain_of(&a->g, a->s.rel[off + i], bad);
                dcg = dcg + (gi != 0 ? gi / a->logs[i] : 0.0);
            }
            total += idcg != 0 ? dcg / idcg : 0.0;
            count += 1;
        }
        double value = count != 0 ? total / count : 0.0;
        out[q] = a->num_rel[q] > 0 ? value : 0.0;
    }
}

/* ndcg_rel(rel, offsets, level_values, level_gain, logs, ideal, ideal_len) -> nDCGRel per query;
 * rndcg(..., ideal_len, num_rel) -> RnDCG per query. */
static PyObject *gain_measure(PyObject *args, int rndcg)
{
    gain_args a;
    held h = {0};
    PyObject *out = NULL;
    double *o;
    int bad = 0;
    if (take_gain_args(&a, &h, args, rndcg) == 0 && (out = new_array(a.s.nq, (void **)&o))) {
        Py_BEGIN_ALLOW_THREADS
        if (rndcg)
            rndcg_loop(&a, o, &bad);
        else
            ndcg_rel_loop(&a, o, &bad);
        Py_END_ALLOW_THREADS
    }
    release(&h);
    return finish(out, &a.g, bad);
}

static PyObject *ndcg_rel(PyObject *self, PyObject *args) { return gain_measure(args, 0); }
static PyObject *rndcg(PyObject *self, PyObject *args) { return gain_measure(args, 1); }

/* ------------------------------------------------------------------------------ binary measures */

enum { INFAP, BPREF, BING, IPREC };

typedef struct {
    segs s;
    int64_t level;
    const int64_t *num_rel, *num_nonrel;
    const double *logs;
} binary_args;

/* infAP (ap.py) and bpref (bpref.py): Σ of the terms of the relevant documents / R (0 when R = 0). */
static void infap_bpref_loop(const binary_args *a, int which, double *out)
{
    for (Py_ssize_t q = 0; q < a->s.nq; q++) {
        const int64_t off = a->s.off[q], n = a->s.off[q + 1] - off, R = a->num_rel[q];
        const double denominator = which == BPREF ? (double)(a->num_nonrel[q] < R ? a->num_nonrel[q] : R) : 0.0;
        int64_t rel_so_far = 0, nonrel = 0, unjudged = 0;
        double total = 0.0;
        for (int64_t i = 0; i < n; i++) {
            const int64_t r = a->s.rel[off + i];
            if (r < a->level) {
                nonrel += r >= 0;
                unjudged += r == UNJUDGED;
                continue;
            }
            rel_so_far++;
            double term;
            if (which == BPREF) {
                term = nonrel > 0 ? 1.0 - (double)(nonrel < R ? nonrel : R) / denominator : 1.0;
            } else if (i == 0) {
                term = 1.0;
            } else {
                const double j = (double)i, rs = (double)rel_so_far, nr = (double)nonrel, un = (double)unjudged;
                term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((rs - 1 + nr + un) / j) *
                                             ((rs - 1 + INFAP_EPSILON) / (rs - 1 + nr + 2 * INFAP_EPSILON));
            }
            total += term;
        }
        out[q] = R != 0 ? total / (double)R : 0.0;
    }
}

/* binG (gain.py): Σ over relevant documents of 1 / log2(2 + non-relevant above) / R. */
static void bing_loop(const binary_args *a, double *out)
{
    for (Py_ssize_t q = 0; q < a->s.nq; q++) {
        const int64_t off = a->s.off[q], n = a->s.off[q + 1] - off, R = a->num_rel[q];
        int64_t rel_so_far = 0;
        double total = 0.0;
        for (int64_t i = 0; i < n; i++)
            if (a->s.rel[off + i] >= a->level) {
                rel_so_far++;
                total += 1.0 / a->logs[i + 1 - rel_so_far];
            }
        out[q] = R != 0 ? total / (double)R : 0.0;
    }
}

/* IPrec (interpolated.py): per relevant document in rank order, the highest precision at or below
 * it in its query. Returns the number of relevant documents (written when out is given). */
static Py_ssize_t iprec_loop(const binary_args *a, double *out)
{
    Py_ssize_t k = 0;
    for (Py_ssize_t q = 0; q < a->s.nq; q++) {
        const int64_t off = a->s.off[q], n = a->s.off[q + 1] - off;
        const Py_ssize_t first = k;
        for (int64_t i = 0; i < n; i++)
            if (a->s.rel[off + i] >= a->level) {
                if (out)
                    out[k] = (double)(k - first + 1) / ((double)i + 1.0);
                k++;
            }
        for (Py_ssize_t m = k - 1; out && m > first; m--)
            if (out[m] > out[m - 1])
                out[m - 1] = out[m];
    }
    return k;
}

/* infap(rel, offsets, level, num_rel), bpref(rel, offsets, level, num_rel, num_nonrel),
 * bing(rel, offsets, level, num_rel, logs) -> values per query; iprec_suffix(rel, offsets, level)
 * -> the suffix maxima of the precisions at the relevant documents. */
static PyObject *binary_measure(PyObject *args, int which)
{
    PyObject *rel, *offsets, *num_rel = NULL, *other = NULL, *out = NULL;
    binary_args a;
    held h = {0};
    long long level;
    double *o;
    if (!PyArg_ParseTuple(args, which == IPREC ? "OOL" : which == INFAP ? "OOLO" : "OOLOO", &rel, &offsets, &level,
                          &num_rel, &other))
        return NULL;
    a.level = level;
    if (take_segs(&a.s, &h, rel, offsets) < 0)
        goto done;
    if (which != IPREC && !(a.num_rel = take(&h, num_rel, 'q', "num_rel", a.s.nq, NULL)))
        goto done;
    if (which == BPREF && !(a.num_nonrel = take(&h, other, 'q', "num_nonrel", a.s.nq, NULL)))
        goto done;
    if (which == BING && !(a.logs = take_logs(&h, other, a.s.longest)))
        goto done;
    if (which == IPREC) {
        Py_ssize_t k;
        Py_BEGIN_ALLOW_THREADS
        k = iprec_loop(&a, NULL);
        Py_END_ALLOW_THREADS
        if ((out = new_array(k, (void **)&o))) {
            Py_BEGIN_ALLOW_THREADS
            iprec_loop(&a, o);
            Py_END_ALLOW_THREADS
        }
    } else if ((out = new_array(a.s.nq, (void **)&o))) {
        Py_BEGIN_ALLOW_THREADS
        if (which == BING)
            bing_loop(&a, o);
        else
            infap_bpref_loop(&a, which, o);
        Py_END_ALLOW_THREADS
    }
done:
    release(&h);
    return out;
}

static PyObject *infap(PyObject *self, PyObject *args) { return binary_measure(args, INFAP); }
static PyObject *bpref(PyObject *self, PyObject *args) { return binary_measure(args, BPREF); }
static PyObject *bing(PyObject *self, PyObject *args) { return binary_measure(args, BING); }
static PyObject *iprec_suffix(PyObject *self, PyObject *args) { return binary_measure(args, IPREC); }

/* ------------------------------------------------------------------------------ module */

static PyMethodDef methods[] = {
    {"segment_cumsum", segment_cumsum, METH_VARARGS,
     "segment_cumsum(values, lengths) -> float64 bytearray: 0, then each segment's running sums."},
    {"dcg_running", dcg_running, METH_VARARGS,
     "dcg_running(rel, offsets, level_values, level_gain, logs) -> float64 bytearray: 0, then running DCG."},
    {"g", g_measure, METH_VARARGS,
     "g(rel, offsets, level_values, level_gain, ideal, ideal_len) -> (args, gains, queries, sum_ideal)."},
    {"ndcg_rel", ndcg_rel, METH_VARARGS,
     "ndcg_rel(rel, offsets, level_values, level_gain, logs, ideal, ideal_len) -> nDCGRel per query."},
    {"rndcg", rndcg, METH_VARARGS,
     "rndcg(rel, offsets, level_values, level_gain, logs, ideal, ideal_len, num_rel) -> RnDCG per query."},
    {"infap", infap, METH_VARARGS, "infap(rel, offsets, level, num_rel) -> infAP per query."},
    {"bpref", bpref, METH_VARARGS, "bpref(rel, offsets, level, num_rel, num_nonrel) -> bpref per query."},
    {"bing", bing, METH_VARARGS, "bing(rel, offsets, level, num_rel, logs) -> binG per query."},
    {"iprec_suffix", iprec_suffix, METH_VARARGS,
     "iprec_suffix(rel, offsets, level) -> highest precision at or below each relevant document."},
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
