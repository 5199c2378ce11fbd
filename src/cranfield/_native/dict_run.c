/* cranfield._native.dict_run: a {qid: {docno: score}} dict run ranked against prepared qrels.
 *
 * The in-memory counterpart of Run.from_dict + retrieval.ranked.rank, for the training-loop use:
 *
 *   index(query_ids, q, docnos, rel) -> the judgments indexed by (query code, docno), built once
 *       per Evaluator (query_ids: the sorted qrels query ids; q, rel: int64 query code and
 *       judgment of each docno; relevance codes as ranked.py: a negative judgment is UNJUDGED, -2);
 *   rank(run, index) -> (rel, counts, judged) as bytearrays of int64, or None
 *       rel: the relevance code of every row of an evaluated query (NONPOOL, -1, when not judged),
 *       grouped by query code and in trec_eval's rank order within a query (score descending,
 *       ties by docno descending, byte-wise on the UTF-8 text); counts: rows of each query code;
 *       judged: the positions in rel of the judged rows (those not NONPOOL), ascending: the join
 *       found them, so the measures need not scan every row for the relevant ones.
 *
 * (The dict's columns, for Run.from_dict and Qrels.from_dict, are dict_columns.c's.)
 *
 * rank() accepts only what Run.from_dict accepts without question: an exact dict of exact dicts,
 * exact str ids (not empty, no ASCII whitespace, no NUL, encodable as UTF-8) and exact float
 * (finite) or int (within int64) scores (relevances: exact ints within int64 only). On anything else (a bad value, a subclass, an empty run,
 * no query in common) it returns None and the Python path runs: that path raises its own error
 * with its own text, so the two can never disagree on an error.
 *
 * The join looks each docno up in its query's region of the index with the str's cached hash (a
 * dict key's hash is computed once, when it was inserted): a bit filter answers for most unjudged
 * docnos, a slot's hash bits and the UTF-8 bytes for the others. Only the
 * rank of the judged rows matters (the others are all NONPOOL): with few of them, each one's rank
 * is the number of rows scored above it; else the query's rows are sorted. That runs without the
 * GIL; a query with tied scores is ranked afterwards with it (the docno order reads the str objects).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NONPOOL (-1)
#define UNJUDGED (-2)


#include "dict_ids.h"
#include "dict_index.h"
#include "merge_sort.h"

/* ------------------------------------------------------------------------------ sorting */

#define SCORE_BEFORE(x, y, ctx) ((x)->score > (y)->score)
DEFINE_SORT(sort_by_score, SCORE_BEFORE)

/* docno descending, byte-wise (strcmp order: ids hold no NUL) */
static inline int docno_before(const item *x, const item *y, void *ctx)
{
    PyObject **docs = (PyObject **)ctx;
    Py_ssize_t nx, ny;
    const char *a = utf8(docs[x->row], &nx), *b = utf8(docs[y->row], &ny);
    int c = memcmp(a, b, (size_t)(nx < ny ? nx : ny));
    return c > 0 || (c == 0 && nx > ny);
}
#define DOCNO_BEFORE(x, y, ctx) docno_before(x, y, ctx)
DEFINE_SORT(sort_by_docno, DOCNO_BEFORE)

/* ------------------------------------------------------------------------------ rank */

/* The rows of the evaluated queries, grouped by query code (query q's rows are start[q] ..
 * start[q + 1] - 1), and the judged ones among them (those found in the index: their row and
 * relevance code, query q's are found_start[q] .. found_start[q] + found_count[q] - 1). */
typedef struct {
    Py_ssize_t n_queries, rows, found, longest;
    int64_t *start;
    int64_t *found_start, *found_count;
    double *score;     /* the rows' scores: in the output buffer until their query is ranked */
    double *local_score;
    int64_t *entry_of; /* per query code: its entry in the run's walk */
    PyObject **local_docs; /* scratch for one query: its docnos, in walk order */
    int64_t *found_row, *found_rel;
    int64_t *judged;   /* the output: positions of the judged rows, query q's from judged_start[q] */
    int64_t *judged_start; /* per query code: its first entry in judged (in code order, not walk order) */
    char *tied;        /* per query: two of its rows share a score (ranked with the GIL) */
    item *items, *tmp; /* scratch for one query */
    int64_t *local_rel;
} rows_t;

static void rows_free(rows_t *r)
{
    PyMem_Free(r->start);
    PyMem_Free(r->found_start);
    PyMem_Free(r->found_count);
    PyMem_Free(r->judged_start);
    PyMem_Free(r->local_score);
    PyMem_Free(r->entry_of);
    PyMem_Free(r->local_docs);
    PyMem_Free(r->found_row);
    PyMem_Free(r->found_rel);
    PyMem_Free(r->tied);
    PyMem_Free(r->items);
    PyMem_Free(r->tmp);
    PyMem_Free(r->local_rel);
}

typedef struct {
    PyObject *docs;    /* the query's {docno: score} (a reference held while ranking) */
    Py_ssize_t q;      /* query code, -1 if not in the qrels */
} query_entry;

/* The queries of the run: their dicts and codes; rows per query code in `counts`. Returns the
 * number of evaluated rows, 0 to decline, -1 on error; *n_entries is set. */
static Py_ssize_t walk_queries(PyObject *run, const judgments *j, query_entry *entries, Py_ssize_t *n_entries,
                               int64_t *counts)
{
    Py_ssize_t pos = 0, rows = 0, all_rows = 0, n;
    *n_entries = 0;
    PyObject *qid, *docs;
    while (PyDict_Next(run, &pos, &qid, &docs)) {
        if (!PyDict_CheckExact(docs))
            return 0;
        Py_ssize_t m = PyDict_GET_SIZE(docs);
        if (m == 0)
            continue; /* no row: its id is not looked at (as Run.from_dict) */
        if (!id_ok(qid))
            return 0;
        PyObject *found = PyDict_GetItemWithError(j->queries, qid);
        if (found == NULL && PyErr_Occurred())
            return -1;
        n = (*n_entries)++;
        entries[n].docs = Py_NewRef(docs); /* kept alive until the query is ranked */
        entries[n].q = found ? PyLong_AsSsize_t(found) : -1;
        if (found) {
            counts[entries[n].q] = m;
            rows += m;
        }
        all_rows += m;
    }
    if (all_rows >= ((Py_ssize_t)1 << 31))
        return 0; /* row numbers are 32-bit here: the Python path takes such a run */
    return rows; /* 0 (an empty run, no query in common): the Python path raises its error */
}

/* Walk every row: check it, keep the rows of evaluated queries at their place, join them with
 * the judgments; 1 done, 0 declined. */
static int collect(const judgments *j, const query_entry *entries, Py_ssize_t n_entries, rows_t *r)
{
    for (Py_ssize_t e = 0; e < n_entries; e++) {
        Py_ssize_t pos = 0, q = entries[e].q;
        PyObject *docno, *value;
        if (q >= 0) {
            r->found_start[q] = r->found;
            r->entry_of[q] = e;
        }
        if (q < 0) { /* not evaluated: only checked */
            while (PyDict_Next(entries[e].docs, &pos, &docno, &value)) {
                double score;
                if (!id_ok(docno) || !score_ok(value, &score))
                    return 0;
            }
            continue;
        }
        int64_t k = r->start[q], found = r->found, *found_row = r->found_row, *found_rel = r->found_rel;
        double *score = r->score;
        const query_index part = query_part(j, q);
        while (PyDict_Next(entries[e].docs, &pos, &docno, &value)) {
            if (!id_ok(docno) || !score_ok(value, &score[k]))
                return 0;
            int64_t rel = judged(j, part, docno);
            if (rel != NONPOOL) {
                found_row[found] = k;
                found_rel[found++] = rel;
            }
            k++;
        }
        r->found = found;
        r->found_count[q] = found - r->found_start[q];
    }
    return 1;
}

/* The positions of query q's judged rows in the ranked output (out: its slice), ascending. */
static void judged_positions(const rows_t *r, Py_ssize_t q, const int64_t *out)
{
    int64_t start = r->start[q], n = r->start[q + 1] - start, *w = r->judged + r->judged_start[q];
    for (int64_t i = 0; i < n; i++)
        if (out[i] != NONPOOL)
            *w++ = start + i;
}

/* Rank query q's judged rows into out, its slice of the ranked relevance codes, which holds the
 * query's scores until then: by counting the rows scored above each (few judged rows) or by
 * sorting the query's rows. Without the GIL: a tie of scores marks the query and leaves its
 * scores in out for rank_tied. */
static void rank_query(rows_t *r, Py_ssize_t q, int64_t *out)
{
    int64_t start = r->start[q], n = r->start[q + 1] - start, judged_rows = r->found_count[q], i;
    const int64_t *row = r->found_row + r->found_start[q], *rel = r->found_rel + r->found_start[q];
    double *s = r->local_score;
    int64_t *place = r->local_rel;
    memcpy(s, out, (size_t)n * sizeof(double));
    int64_t log2n = 1;
    while (((int64_t)1 << log2n) < n)
        log2n++;
    if (judged_rows <= 4 * log2n) { /* cheaper than a sort: judged x n comparisons, vectorised */
        for (int64_t f = 0; f < judged_rows; f++) {
            double x = s[row[f] - start];
            int64_t above = 0, equal = 0;
            for (i = 0; i < n; i++) {
                above += s[i] > x;
                equal += s[i] == x;
            }
            if (equal > 1) {
                r->tied[q] = 1;
                return;
            }
            place[f] = above;
        }
        for (i = 0; i < n; i++)
            out[i] = NONPOOL;
        for (int64_t f = 0; f < judged_rows; f++)
            out[place[f]] = rel[f];
        return;
    }
    for (i = 0; i < n; i++) {
        r->items[i].score = s[i];
        r->items[i].row = (uint32_t)i;
        place[i] = NONPOOL;
    }
    for (int64_t f = 0; f < judged_rows; f++)
        place[row[f] - start] = rel[f];
    for (i = 1; i < n && s[i] <= s[i - 1]; i++)
        ;
    if (i < n)
        sort_by_score(r->items, r->tmp, n, NULL);
    for (i = 1; i < n; i++)
        if (r->items[i].score == r->items[i - 1].score) {
            r->tied[q] = 1;
            return;
        }
    for (i = 0; i < n; i++)
        out[i] = place[r->items[i].row];
}

/* Rank a query with tied scores: sorted by score, each block of ties by docno (with the GIL:
 * reads the str objects, from the query's dict walked again; another thread may have changed it
 * while the GIL was released: then a RuntimeError, as Python's own dict iteration). 0 or -1. */
static int rank_tied(rows_t *r, const query_entry *entry, Py_ssize_t q, int64_t *out)
{
    int64_t start = r->start[q], n = r->start[q + 1] - start;
    const int64_t *row = r->found_row + r->found_start[q], *rel = r->found_rel + r->found_start[q];
    Py_ssize_t pos = 0, i = 0;
    PyObject *docno, *value;
    double score;
    if (PyDict_GET_SIZE(entry->docs) != n)
        goto changed;
    while (PyDict_Next(entry->docs, &pos, &docno, &value)) {
        if (i >= n || !id_ok(docno) || !score_ok(value, &score) || memcmp(&score, &r->score[start + i], sizeof score))
            goto changed;
        r->local_docs[i++] = docno;
    }
    for (int64_t i = 0; i < n; i++) {
        r->items[i].score = r->score[start + i];
        r->items[i].row = (uint32_t)i;
        r->local_rel[i] = NONPOOL;
    }
    for (int64_t f = 0; f < r->found_count[q]; f++)
        r->local_rel[row[f] - start] = rel[f];
    sort_by_score(r->items, r->tmp, n, NULL);
    for (int64_t i = 0; i < n;) {
        int64_t k = i + 1;
        while (k < n && r->items[k].score == r->items[i].score)
            k++;
        if (k - i > 1)
            sort_by_docno(r->items + i, r->tmp, k - i, r->local_docs);
        i = k;
    }
    for (int64_t i = 0; i < n; i++)
        out[i] = r->local_rel[r->items[i].row];
    return 0;
changed:
    PyErr_SetString(PyExc_RuntimeError, "the run dict changed during evaluation");
    return -1;
}

static int rows_alloc(rows_t *r, Py_ssize_t n_queries, const int64_t *counts, Py_ssize_t rows)
{
    r->n_queries = n_queries;
    r->rows = rows;
    r->start = PyMem_Calloc((size_t)n_queries + 1, sizeof(int64_t));
    r->found_start = PyMem_Calloc((size_t)n_queries + 1, sizeof(int64_t));
    r->found_count = PyMem_Calloc((size_t)n_queries + 1, sizeof(int64_t));
    r->judged_start = PyMem_Calloc((size_t)n_queries + 1, sizeof(int64_t));
    r->tied = PyMem_Calloc((size_t)n_queries + 1, 1);
    r->entry_of = PyMem_Malloc(((size_t)n_queries + 1) * sizeof(int64_t));
    r->found_row = PyMem_Malloc((size_t)rows * sizeof(int64_t));
    r->found_rel = PyMem_Malloc((size_t)rows * sizeof(int64_t));
    if (!r->start || !r->found_start || !r->found_count || !r->judged_start || !r->tied || !r->entry_of ||
        !r->found_row || !r->found_rel)
        return -1;
    r->longest = 0;
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        r->start[q + 1] = r->start[q] + counts[q];
        if (counts[q] > r->longest)
            r->longest = counts[q];
    }
    r->items = PyMem_Malloc((size_t)r->longest * sizeof(item));
    r->tmp = PyMem_Malloc((size_t)r->longest * sizeof(item));
    r->local_rel = PyMem_Malloc((size_t)r->longest * sizeof(int64_t));
    r->local_docs = PyMem_Malloc((size_t)r->longest * sizeof(PyObject *));
    r->local_score = PyMem_Malloc((size_t)r->longest * sizeof(double));
    return r->items && r->tmp && r->local_rel && r->local_docs && r->local_score ? 0 : -1;
}

static PyObject *rank_run(PyObject *self, PyObject *args)
{
    PyObject *run, *index, *result = NULL, *rel_out = NULL, *counts_out = NULL, *judged_out = NULL;
    Py_ssize_t n_entries = 0;
    rows_t r = {0};
    if (!PyArg_ParseTuple(args, "OO", &run, &index))
        return NULL;
    const judgments *j = PyCapsule_GetPointer(index, "cranfield.dict_run.judgments");
    if (j == NULL)
        return NULL;
    if (!PyDict_CheckExact(run))
        Py_RETURN_NONE;
    Py_ssize_t n_queries = j->n_queries;
    query_entry *entries = PyMem_Malloc(((size_t)PyDict_GET_SIZE(run) + 1) * sizeof(query_entry));
    counts_out = PyByteArray_FromStringAndSize(NULL, n_queries * (Py_ssize_t)sizeof(int64_t));
    if (entries == NULL || counts_out == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t *counts = (int64_t *)PyByteArray_AS_STRING(counts_out);
    memset(counts, 0, (size_t)n_queries * sizeof(int64_t));
    Py_ssize_t rows = walk_queries(run, j, entries, &n_entries, counts);
    if (rows <= 0) {
        if (rows == 0)
            result = Py_NewRef(Py_None);
        goto done;
    }
    rel_out = PyByteArray_FromStringAndSize(NULL, rows * (Py_ssize_t)sizeof(int64_t));
    if (rel_out == NULL || rows_alloc(&r, n_queries, counts, rows) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    r.score = (double *)PyByteArray_AS_STRING(rel_out);
    if (!collect(j, entries, n_entries, &r)) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    judged_out = PyByteArray_FromStringAndSize(NULL, r.found * (Py_ssize_t)sizeof(int64_t));
    if (judged_out == NULL)
        goto done;
    r.judged = (int64_t *)PyByteArray_AS_STRING(judged_out);
    for (Py_ssize_t q = 0; q < n_queries; q++) /* the judged rows in query code order (found: in walk order) */
        r.judged_start[q + 1] = r.judged_start[q] + r.found_count[q];
    int64_t *ranked = (int64_t *)PyByteArray_AS_STRING(rel_out);
    int tied = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t q = 0; q < n_queries; q++) {
        rank_query(&r, q, ranked + r.start[q]);
        if (r.tied[q])
            tied = 1;
        else
            judged_positions(&r, q, ranked + r.start[q]);
    }
    Py_END_ALLOW_THREADS
    for (Py_ssize_t q = 0; tied && q < n_queries; q++)
        if (r.tied[q]) {
            if (rank_tied(&r, &entries[r.entry_of[q]], q, ranked + r.start[q]) < 0)
                goto done;
            judged_positions(&r, q, ranked + r.start[q]);
        }
    result = PyTuple_Pack(3, rel_out, counts_out, judged_out);
done:
    Py_XDECREF(rel_out);
    Py_XDECREF(counts_out);
    Py_XDECREF(judged_out);
    for (Py_ssize_t e = 0; e < n_entries; e++)
        Py_DECREF(entries[e].docs);
    PyMem_Free(entries);
    rows_free(&r);
    return result;
}

static PyMethodDef methods[] = {
    {"index", index_judgments, METH_VARARGS,
     "index(query_ids, q, docnos, rel) -> the judgments, indexed for rank() (a capsule)."},
    {"rank", rank_run, METH_VARARGS,
     "rank(run, index) -> (rel, counts, judged) int64 bytearrays, or None to let the Python path run."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "cranfield._native.dict_run",
    "A {qid: {docno: score}} dict run ranked against prepared qrels (see dict_run.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_dict_run(void)
{
    return PyModule_Create(&module);
}
