/* The judgments of dict qrels indexed by (query code, docno) for dict_run.c: index() builds
 * them once per Evaluator, judged() looks a run's docno up (see dict_run.c). */
#ifndef CRANFIELD_DICT_INDEX_H
#define CRANFIELD_DICT_INDEX_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "dict_ids.h"

#ifndef NONPOOL
#define NONPOOL (-1)
#define UNJUDGED (-2)
#endif

/* The judgments of the qrels, in one open-addressing table per query (contiguous regions of one
 * slot array, load <= 3/4): a slot holds 32 bits of the docno's str hash (those the region's
 * size does not use) and its judgment number; a hit is verified on the UTF-8 bytes. A run lists a
 * query's documents together, so its probes stay in one small region: a few cache lines (a
 * Python dict per query costs a pointer chase to a key object per probe). */
typedef struct {
    uint32_t tag;        /* bits 32-63 of the docno's hash */
    int32_t judgment;    /* judgment number, -1 if empty */
} slot_t;

typedef struct {
    PyObject *queries;   /* {qid: query code} */
    Py_ssize_t n_queries;
    int64_t *base;       /* first slot of each query's region */
    int64_t *mask;       /* region size - 1 */
    slot_t *slots;
    uint64_t *bloom;     /* per query, a bit per hash value (h >> 40) & bloom_mask: a filter of its docnos */
    int64_t *bloom_base; /* first word of each query's bits */
    uint64_t *bloom_mask;
    int64_t *rel;        /* per judgment: relevance code */
    int64_t *offset;     /* per judgment: its docno's bytes in `text` (n + 1 offsets) */
    char *text;
} judgments;

static void judgments_free(judgments *j)
{
    if (j == NULL)
        return;
    Py_XDECREF(j->queries);
    PyMem_Free(j->base);
    PyMem_Free(j->mask);
    PyMem_Free(j->slots);
    PyMem_Free(j->bloom);
    PyMem_Free(j->bloom_base);
    PyMem_Free(j->bloom_mask);
    PyMem_Free(j->rel);
    PyMem_Free(j->offset);
    PyMem_Free(j->text);
    PyMem_Free(j);
}

static void capsule_free(PyObject *capsule)
{
    judgments_free((judgments *)PyCapsule_GetPointer(capsule, "cranfield.dict_run.judgments"));
}

/* Fill the slot table; every docno must be an exact str. 0 on success, -1 on error. */
static int judgments_fill(judgments *j, PyObject *docnos, const int64_t *q, const int64_t *rel, Py_ssize_t n)
{
    Py_ssize_t n_queries = j->n_queries, total = 0, text_size = 0;
    int64_t *count = PyMem_Calloc((size_t)n_queries + 1, sizeof(int64_t));
    if (count == NULL)
        return PyErr_NoMemory(), -1;
    for (Py_ssize_t k = 0; k < n; k++)
        count[q[k]]++;
    Py_ssize_t words = 0;
    for (Py_ssize_t i = 0; i < n_queries; i++) {
        int64_t size = 4, bits = 64;
        while (3 * size < 4 * count[i])
            size *= 2;
        while (bits < 16 * count[i]) /* 16 bits a docno: 6% of absent docnos pass the filter */
            bits *= 2;
        j->base[i] = total;
        j->mask[i] = size - 1;
        total += size;
        j->bloom_base[i] = words;
        j->bloom_mask[i] = (uint64_t)bits - 1;
        words += bits / 64;
    }
    PyMem_Free(count);
    j->bloom = PyMem_Calloc((size_t)words + 1, sizeof(uint64_t));
    if (j->bloom == NULL)
        return PyErr_NoMemory(), -1;
    j->slots = PyMem_Malloc((size_t)(total + 1) * sizeof(slot_t));
    if (j->slots == NULL)
        return PyErr_NoMemory(), -1;
    for (Py_ssize_t i = 0; i <= total; i++)
        j->slots[i].judgment = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *d = PyList_GET_ITEM(docnos, k);
        Py_ssize_t size;
        if (!PyUnicode_CheckExact(d) || PyUnicode_AsUTF8AndSize(d, &size) == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "index: docnos must be str");
            return -1;
        }
        text_size += size;
    }
    j->text = PyMem_Malloc((size_t)text_size + 1);
    if (j->text == NULL)
        return PyErr_NoMemory(), -1;
    j->offset[0] = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *d = PyList_GET_ITEM(docnos, k);
        Py_ssize_t size;
        const char *bytes = PyUnicode_AsUTF8AndSize(d, &size);
        Py_hash_t h = PyObject_Hash(d);
        if (h == -1)
            return -1;
        memcpy(j->text + j->offset[k], bytes, (size_t)size);
        j->offset[k + 1] = j->offset[k] + size;
        j->rel[k] = rel[k] < 0 ? UNJUDGED : rel[k];
        int64_t m = j->mask[q[k]], i = (int64_t)((uint64_t)h & (uint64_t)m);
        slot_t *slots = j->slots + j->base[q[k]];
        while (slots[i].judgment >= 0) /* (duplicates were refused when the qrels were prepared) */
            i = (i + 1) & m;
        slots[i].judgment = (int32_t)k;
        slots[i].tag = (uint32_t)((uint64_t)h >> 32);
        uint64_t bit = ((uint64_t)h >> 40) & j->bloom_mask[q[k]];
        j->bloom[j->bloom_base[q[k]] + (int64_t)(bit >> 6)] |= (uint64_t)1 << (bit & 63);
    }
    return 0;
}

static PyObject *index_judgments(PyObject *self, PyObject *args)
{
    PyObject *query_ids, *docnos, *result = NULL;
    Py_buffer qbuf = {0}, rbuf = {0};
    if (!PyArg_ParseTuple(args, "O!y*O!y*", &PyList_Type, &query_ids, &qbuf, &PyList_Type, &docnos, &rbuf))
        return NULL;
    Py_ssize_t n_queries = PyList_GET_SIZE(query_ids), n = PyList_GET_SIZE(docnos);
    const int64_t *q = (const int64_t *)qbuf.buf, *rel = (const int64_t *)rbuf.buf;
    judgments *j = NULL;
    if (qbuf.len != n * 8 || rbuf.len != n * 8) {
        PyErr_SetString(PyExc_ValueError, "index: q and rel must be int64 buffers as long as docnos");
        goto done;
    }
    if (n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "index: too many judgments");
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (q[k] < 0 || q[k] >= n_queries) {
            PyErr_SetString(PyExc_ValueError, "index: query code out of range");
            goto done;
        }
    j = PyMem_Calloc(1, sizeof(judgments));
    if (j == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    j->n_queries = n_queries;
    j->queries = PyDict_New();
    j->base = PyMem_Malloc(((size_t)n_queries + 1) * sizeof(int64_t));
    j->mask = PyMem_Malloc(((size_t)n_queries + 1) * sizeof(int64_t));
    j->bloom_base = PyMem_Malloc(((size_t)n_queries + 1) * sizeof(int64_t));
    j->bloom_mask = PyMem_Malloc(((size_t)n_queries + 1) * sizeof(uint64_t));
    j->rel = PyMem_Malloc(((size_t)n + 1) * sizeof(int64_t));
    j->offset = PyMem_Malloc(((size_t)n + 1) * sizeof(int64_t));
    if (j->queries == NULL || j->base == NULL || j->mask == NULL || j->rel == NULL || j->offset == NULL ||
        j->bloom_base == NULL || j->bloom_mask == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_queries; i++) {
        PyObject *code = PyLong_FromSsize_t(i);
        int failed = code == NULL || PyDict_SetItem(j->queries, PyList_GET_ITEM(query_ids, i), code) < 0;
        Py_XDECREF(code);
        if (failed)
            goto done;
    }
    if (judgments_fill(j, docnos, q, rel, n) < 0)
        goto done;
    result = PyCapsule_New(j, "cranfield.dict_run.judgments", capsule_free);
    if (result != NULL)
        j = NULL;
done:
    judgments_free(j);
    PyBuffer_Release(&qbuf);
    PyBuffer_Release(&rbuf);
    return result;
}

/* One query's part of the index, in locals (the walk calls into Python's dict code between rows,
 * so fields read through the index would be read again at every row). */
typedef struct {
    const uint64_t *bloom;
    uint64_t bloom_mask;
    const slot_t *slots;
    int64_t mask;
} query_index;

static inline query_index query_part(const judgments *j, Py_ssize_t q)
{
    query_index part = {j->bloom + j->bloom_base[q], j->bloom_mask[q], j->slots + j->base[q], j->mask[q]};
    return part;
}

/* Relevance code of `docno` (an id checked by id_ok) in its query's part of the index: its
 * judgment, or NONPOOL. */
static inline int64_t judged(const judgments *j, query_index part, PyObject *docno)
{
    Py_hash_t h = ((PyASCIIObject *)docno)->hash; /* a dict key's: computed when it was inserted */
    if (h == -1)
        h = PyObject_Hash(docno); /* (an exact str's hash never fails) */
    uint64_t bit = ((uint64_t)h >> 40) & part.bloom_mask;
    if (!(part.bloom[bit >> 6] >> (bit & 63) & 1))
        return NONPOOL; /* most docnos of a run are not judged: one bit says so */
    Py_ssize_t size;
    const char *bytes = utf8(docno, &size);
    int64_t i = (int64_t)((uint64_t)h & (uint64_t)part.mask);
    uint32_t tag = (uint32_t)((uint64_t)h >> 32);
    for (;; i = (i + 1) & part.mask) {
        int64_t k = part.slots[i].judgment;
        if (k < 0)
            return NONPOOL;
        if (part.slots[i].tag == tag && j->offset[k + 1] - j->offset[k] == size &&
            memcmp(j->text + j->offset[k], bytes, (size_t)size) == 0)
            return j->rel[k];
    }
}

#endif
