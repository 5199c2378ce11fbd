/* cranfield._native.doc_join: a run's docno column joined with prepared qrels, on the bytes.
 *
 * The compiled counterpart of retrieval.doc_join.PackedDocs (relevance, duplicate check, tie order),
 * fed by the Arrow buffers of a string column (offsets, data) and the query codes:
 *
 *   index(q, rel, chunks, large, n_queries[, filled]) -> (index, duplicate):
 *       the judgments indexed by (query code, docno bytes), built once per prepared qrels (a capsule
 *       that holds the caller's buffers, not a copy: they are read-only by convention); duplicate:
 *       True when a (query, docno) is judged twice (the caller words the error on the pure path).
 *       With `filled`, only the first `filled` judgments are inserted, the others by
 *   fill(index, q, first, stop) -> duplicate: judgments first .. stop - 1 inserted, without the GIL;
 *       fills of row ranges run at once when no query has judgments in two of them;
 *   join(index, qi, rows, chunks, large) -> (rel, duplicate)
 *       rel: int64 bytearray, the relevance code of each kept row (rows: int64 row numbers of the
 *       kept rows, or None for all; qi: query code of each kept row): the judgment (a negative one
 *       is UNJUDGED, -2), NONPOOL (-1) when not judged; duplicate: True when a (query, docno) occurs
 *       twice among the kept rows (the caller then finds and words the error on the pure path);
 *   tie_order(chunks, large, rows, block) -> int64 bytearray: the permutation
 *       putting the given rows in (block ascending, docno descending byte-wise) order; block is
 *       non-decreasing (rows of a block are adjacent).
 *
 * A column of docnos is given as the chunks of an Arrow chunked string array, each a tuple (offsets
 * buffer, data buffer, Arrow offset, length), read where they are (see doc_bytes.h): rows are
 * numbered across the chunks.
 *
 * A docno's hash mixes its bytes 8 at a time; every match is verified on the bytes (length and memcmp),
 * so a collision costs a probe, never a wrong number. Each query's judgments also set one bit each
 * in a filter of 16 bits a judgment: most docnos of a run are not judged, and one load says so for
 * about 94 % of them (a set bit only sends the docno on to the probe). Byte-wise order is memcmp
 * order, a prefix before the longer id (trec_eval's strcmp for ids without NUL). All loops run
 * without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)0)
#endif

#define NONPOOL (-1)
#define UNJUDGED (-2)

#include "doc_bytes.h"

/* ------------------------------------------------------------------------------ index */

typedef struct {
    uint32_t tag;     /* high 32 bits of the docno's hash */
    int32_t judgment; /* 1 + the judgment's number; 0: empty */
} slot_t;

typedef struct {
    Py_ssize_t n_queries, n;
    int64_t *base, *size; /* per query: its region of slots (any size: see first_slot) */
    int64_t *bits_base, *bits_mask; /* per query: its bit filter (words from bits_base, bit mask) */
    uint64_t *bits;       /* one bit set per judgment: most docnos of a run are not judged, one load says so */
    char *cleared;        /* per query: whether its region is cleared */
    slot_t *slots;
    column docnos;        /* the judged docnos, in the caller's buffers (held, not copied) */
    const int64_t *rel;   /* the caller's relevance of each judgment (held) */
    Py_buffer held_rel;   /* released with the index, as the docnos' buffers */
} judgments;

/* Frees the index and releases the caller's buffers (with the GIL held). */
static void judgments_free(judgments *j)
{
    if (j == NULL)
        return;
    column_release(&j->docnos);
    PyBuffer_Release(&j->held_rel);
    PyMem_RawFree(j->base);
    PyMem_RawFree(j->size);
    PyMem_RawFree(j->bits_base);
    PyMem_RawFree(j->bits_mask);
    PyMem_RawFree(j->bits);
    PyMem_RawFree(j->cleared);
    PyMem_RawFree(j->slots);
    PyMem_RawFree(j);
}

static void capsule_free(PyObject *capsule)
{
    judgments_free((judgments *)PyCapsule_GetPointer(capsule, "cranfield.doc_join.judgments"));
}

/* The first slot of a docno of hash h in a region of `size` slots: the low 32 bits of the hash
 * scaled to the size (a multiply, not a mask: a region need not be a power of two, so it is sized
 * to its query's judgments, load <= 2/3). */
static inline int64_t first_slot(uint64_t h, int64_t size)
{
    return (int64_t)(((h & 0xFFFFFFFFu) * (uint64_t)size) >> 32);
}

static inline int64_t probe(const judgments *j, int64_t q, const char *p, int64_t n, uint64_t h)
{
    int64_t size = j->size[q], i = first_slot(h, size);
    const slot_t *slots = j->slots + j->base[q];
    uint32_t tag = (uint32_t)(h >> 32);
    while (slots[i].judgment > 0) {
        int32_t k = slots[i].judgment - 1;
        if (slots[i].tag == tag) {
            const char *t;
            int64_t len;
            cell(&j->docnos, k, &t, &len);
            if (len == n && memcmp(t, p, (size_t)n) == 0)
                return k;
        }
        i = i + 1 == size ? 0 : i + 1;
    }
    return -1;
}

/* The relevance code of judgment k: its value, UNJUDGED for a negative one. */
static inline int64_t relevance(const judgments *j, int64_t k)
{
    return j->rel[k] < 0 ? UNJUDGED : j->rel[k];
}

/* The filter bit of a docno of hash h in a query's filter of mask + 1 bits: hash bits 40 and up,
 * apart from the bits that choose the first slot (the low 32, see first_slot; the tag, the high
 * 32, is compared in full). A filter of more than 2^24 bits (a query of over a million judgments)
 * uses its first 2^24: more docnos pass it, none is missed. Set by judgments_fill, read by
 * join_rows. */
static inline uint64_t filter_bit(uint64_t h, int64_t mask)
{
    return (h >> 40) & (uint64_t)mask;
}

/* Empties the slots of query q (its region of the table). */
static void clear_region(judgments *j, int64_t q)
{
    memset(j->slots + j->base[q], 0, (size_t)j->size[q] * sizeof(slot_t));
    j->cleared[q] = 1;
}

/* Sizes each query's region of slots (load <= 2/3) and allocates the table; 0, or -1 (out of
 * memory). A region is cleared when its query's first judgment comes (qrels list a query's
 * judgments together: the region is then in cache for the others, and a fresh page is faulted in
 * once, by a write); the regions of queries without judgments are cleared here. */
static int judgments_layout(judgments *j, const int64_t *q)
{
    Py_ssize_t n = j->n, n_queries = j->n_queries;
    int64_t total = 0;
    int64_t *count = calloc((size_t)n_queries + 1, sizeof(int64_t));
    j->cleared = PyMem_RawCalloc((size_t)n_queries + 1, 1);
    if (count == NULL || j->cleared == NULL) {
        free(count);
        return -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        count[q[k]]++;
    int64_t words = 0;
    for (Py_ssize_t i = 0; i < n_queries; i++) {
        int64_t size = count[i] + count[i] / 2 + 2, bits = 64; /* an empty slot in every region */
        while (bits < 16 * count[i]) /* 16 bits a judgment: about 6 % of unjudged docnos pass */
            bits *= 2;
        j->base[i] = total;
        j->size[i] = size;
        total += size;
        j->bits_base[i] = words;
        j->bits_mask[i] = bits - 1;
        words += bits / 64;
    }
    j->bits = PyMem_RawCalloc((size_t)words + 1, sizeof(uint64_t));
    if (j->bits == NULL) {
        free(count);
        return -1;
    }
    j->slots = PyMem_RawMalloc(((size_t)total + 1) * sizeof(slot_t));
    for (Py_ssize_t i = 0; j->slots != NULL && i < n_queries; i++)
        if (count[i] == 0)
            clear_region(j, i);
    free(count);
    return j->slots == NULL ? -1 : 0;
}

/* Inserts judgments first .. stop - 1; 1 if a (query, docno) among them is judged twice (stored
 * once), else 0. Fills of several row ranges may run at once when no query has judgments in two
 * of them (each writes only its queries' regions). */
static int judgments_fill(judgments *j, const int64_t *q, Py_ssize_t first, Py_ssize_t stop)
{
    int duplicate = 0;
    for (Py_ssize_t k = first; k < stop; k++) {
        const char *p;
        int64_t len;
        if (!j->cleared[q[k]])
            clear_region(j, q[k]);
        cell(&j->docnos, k, &p, &len);
        uint64_t h = hash_bytes(p, len);
        if (probe(j, q[k], p, len, h) >= 0) {
            duplicate = 1; /* the caller words the error */
            continue;
        }
        int64_t size = j->size[q[k]], i = first_slot(h, size);
        slot_t *slots = j->slots + j->base[q[k]];
        while (slots[i].judgment > 0)
            i = i + 1 == size ? 0 : i + 1;
        slots[i].judgment = (int32_t)k + 1;
        slots[i].tag = (uint32_t)(h >> 32);
        uint64_t bit = filter_bit(h, j->bits_mask[q[k]]);
        j->bits[j->bits_base[q[k]] + (int64_t)(bit >> 6)] |= (uint64_t)1 << (bit & 63);
    }
    return duplicate;
}

/* A new index over the caller's buffers (held from here on), laid out, not filled; NULL with an
 * exception set. */
static judgments *judgments_new(Py_buffer *qbuf, Py_buffer *rbuf, PyObject *chunks, int large, Py_ssize_t n_queries)
{
    const int64_t *q = qbuf->buf;
    column c;
    int failed;
    if (column_init(&c, chunks, large) < 0)
        return NULL;
    Py_ssize_t length = c.length;
    if (qbuf->len != length * 8 || rbuf->len != length * 8 || length >= INT32_MAX || n_queries < 0) {
        column_release(&c);
        PyErr_SetString(PyExc_ValueError, "index: q and rel must be int64 buffers as long as the docnos");
        return NULL;
    }
    for (Py_ssize_t k = 0; k < length; k++)
        if (q[k] < 0 || q[k] >= n_queries) {
            column_release(&c);
            PyErr_SetString(PyExc_ValueError, "index: query code out of range");
            return NULL;
        }
    judgments *j = PyMem_RawCalloc(1, sizeof(judgments));
    if (j == NULL) {
        column_release(&c);
        return (judgments *)PyErr_NoMemory();
    }
    j->n = length;
    j->n_queries = n_queries;
    j->docnos = c; /* the index holds the caller's buffers from here on */
    j->rel = rbuf->buf;
    j->held_rel = *rbuf;
    rbuf->obj = NULL;
    j->base = PyMem_RawMalloc(((size_t)n_queries + 1) * sizeof(int64_t));
    j->size = PyMem_RawMalloc(((size_t)n_queries + 1) * sizeof(int64_t));
    j->bits_base = PyMem_RawMalloc(((size_t)n_queries + 1) * sizeof(int64_t));
    j->bits_mask = PyMem_RawMalloc(((size_t)n_queries + 1) * sizeof(int64_t));
    if (j->base == NULL || j->size == NULL || j->bits_base == NULL || j->bits_mask == NULL) {
        judgments_free(j);
        return (judgments *)PyErr_NoMemory();
    }
    Py_BEGIN_ALLOW_THREADS
    failed = judgments_layout(j, q);
    Py_END_ALLOW_THREADS
    if (failed < 0) {
        judgments_free(j);
        return (judgments *)PyErr_NoMemory();
    }
    return j;
}

static PyObject *index_judgments(PyObject *self, PyObject *args)
{
    Py_buffer qbuf = {0}, rbuf = {0};
    Py_ssize_t n_queries, filled = -1;
    int large, duplicate = 0;
    PyObject *result = NULL, *chunks;
    if (!PyArg_ParseTuple(args, "y*y*Opn|n", &qbuf, &rbuf, &chunks, &large, &n_queries, &filled))
        return NULL;
    judgments *j = judgments_new(&qbuf, &rbuf, chunks, large, n_queries);
    if (j == NULL)
        goto done;
    filled = filled < 0 || filled > j->n ? j->n : filled;
    Py_BEGIN_ALLOW_THREADS
    duplicate = judgments_fill(j, qbuf.buf, 0, filled);
    Py_END_ALLOW_THREADS
    PyObject *capsule = PyCapsule_New(j, "cranfield.doc_join.judgments", capsule_free);
    if (capsule == NULL) {
        judgments_free(j);
        goto done;
    }
    result = Py_BuildValue("(NO)", capsule, duplicate ? Py_True : Py_False);
done:
    PyBuffer_Release(&qbuf);
    PyBuffer_Release(&rbuf);
    return result;
}

/* fill(index, q, first, stop) -> duplicate: inserts judgments first .. stop - 1 of an index made
 * by index(..., filled) (q: the same query codes); see judgments_fill for running fills at once. */
static PyObject *fill(PyObject *self, PyObject *args)
{
    PyObject *capsule;
    Py_buffer qbuf = {0};
    Py_ssize_t first, stop;
    int duplicate = 0;
    if (!PyArg_ParseTuple(args, "Oy*nn", &capsule, &qbuf, &first, &stop))
        return NULL;
    judgments *j = PyCapsule_GetPointer(capsule, "cranfield.doc_join.judgments");
    if (j == NULL || qbuf.len != j->n * 8 || first < 0 || stop < first || stop > j->n) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "fill: q as given to index, and 0 <= first <= stop <= judgments");
        PyBuffer_Release(&qbuf);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    duplicate = judgments_fill(j, qbuf.buf, first, stop);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&qbuf);
    return PyBool_FromLong(duplicate);
}

/* ------------------------------------------------------------------------------ join */

/* 1 if a docno repeats among the kept rows first .. first + n - 1 (all of one query, or any rows
 * when `qi` is given: then (query, docno) pairs); `table` holds size slots (a power of two >= 2n),
 * `hashes` the rows' docno hashes (indexed from 0 at first). */
typedef struct {
    uint32_t tag;
    int32_t row; /* -1: empty */
} seen_t;

static int repeats(const column *c, const int64_t *rows, const int64_t *qi, Py_ssize_t first, Py_ssize_t n,
                   const uint64_t *hashes, seen_t *table, int64_t size)
{
    int64_t mask = size - 1;
    for (int64_t i = 0; i < size; i++)
        table[i].row = -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        uint64_t g = hashes[k];
        if (qi != NULL) {
            g = (g ^ ((uint64_t)qi[first + k] * 0x9E3779B97F4A7C15ULL)) * 0xD6E8FEB86659FD93ULL;
            g ^= g >> 32;
        }
        uint32_t tag = (uint32_t)(g >> 32);
        int64_t i = (int64_t)(g & (uint64_t)mask);
        const char *p, *p2;
        int64_t len, len2;
        cell(c, rows ? rows[first + k] : first + k, &p, &len);
        for (; table[i].row >= 0; i = (i + 1) & mask) {
            int32_t other = table[i].row;
            if (table[i].tag != tag || (qi != NULL && qi[first + other] != qi[first + k]))
                continue;
            cell(c, rows ? rows[first + other] : first + other, &p2, &len2);
            if (len2 == len && memcmp(p, p2, (size_t)len) == 0)
                return 1;
        }
        table[i].row = (int32_t)k;
        table[i].tag = tag;
    }
    return 0;
}

static int64_t table_size(Py_ssize_t n)
{
    int64_t size = 16;
    while (size < 2 * n)
        size *= 2;
    return size;
}

/* Relevance code of each kept row; 1 if a (query, docno) repeats among them; -1 out of memory.
 * One pass over the rows, block by block (a run lists a query's rows together): each row is looked
 * up in the judgments and in a small table of its block's docnos (in cache); when a query's rows are
 * not together, repeats are looked for afterwards over all rows at once. */
static int join_rows(const judgments *j, const column *c, const int64_t *qi, const int64_t *rows, Py_ssize_t n,
                     int64_t *out)
{
    uint64_t *hashes = malloc(((size_t)n + 1) * sizeof(uint64_t));
    char *seen_query = calloc((size_t)j->n_queries + 1, 1);
    int64_t capacity = 0;
    seen_t *table = NULL;
    int duplicate = 0, scattered = 0;
    if (hashes == NULL || seen_query == NULL)
        goto nomem;
    for (Py_ssize_t a = 0; a < n;) {
        int64_t q = qi[a];
        Py_ssize_t b = a + 1;
        while (b < n && qi[b] == q)
            b++;
        scattered |= seen_query[q];
        seen_query[q] = 1;
        /* the query's repeated-docno table: load <= 1/4 (short probes); a slot holding a row of an
         * earlier query (row < a) is empty, so the table is emptied only when it is allocated */
        int64_t size = table_size(2 * (b - a)), mask = size - 1;
        if (size > capacity) {
            free(table);
            capacity = size;
            table = malloc((size_t)capacity * sizeof(seen_t));
            if (table == NULL)
                goto nomem;
            for (int64_t i = 0; i < capacity; i++)
                table[i].row = -1;
        }
        const span sp = span_of(c, rows ? rows[a] : a); /* (a < n: the column has rows) */
        const slot_t *region = j->slots + j->base[q];
        const uint64_t *bits = j->bits + j->bits_base[q];
        const int64_t bits_mask = j->bits_mask[q];
        for (Py_ssize_t k = a; k < b; k++) { /* the hashes first: the region's lines are fetched meanwhile */
            const char *p;
            int64_t len;
            span_cell(c, &sp, rows ? rows[k] : k, &p, &len);
            hashes[k] = hash_bytes(p, len);
            PREFETCH(region + first_slot(hashes[k], j->size[q]));
        }
        for (Py_ssize_t k = a; k < b; k++) {
            const char *p, *p2;
            int64_t len, len2;
            span_cell(c, &sp, rows ? rows[k] : k, &p, &len);
            uint64_t h = hashes[k], bit = filter_bit(h, bits_mask);
            int64_t found = bits[bit >> 6] >> (bit & 63) & 1 ? probe(j, q, p, len, h) : -1;
            out[k] = found >= 0 ? relevance(j, found) : NONPOOL;
            if (duplicate)
                continue;
            uint32_t tag = (uint32_t)(h >> 32);
            int64_t i = (int64_t)(h & (uint64_t)mask);
            for (; table[i].row >= a; i = (i + 1) & mask) {
                int32_t other = table[i].row;
                if (table[i].tag != tag)
                    continue;
                span_cell(c, &sp, rows ? rows[other] : other, &p2, &len2);
                if (len2 == len && memcmp(p, p2, (size_t)len) == 0) {
                    duplicate = 1;
                    break;
                }
            }
            table[i].row = (int32_t)k;
            table[i].tag = tag;
        }
        a = b;
    }
    if (scattered && !duplicate) {
        free(table);
        table = malloc((size_t)table_size(n) * sizeof(seen_t));
        if (table == NULL)
            goto nomem;
        duplicate = repeats(c, rows, qi, 0, n, hashes, table, table_size(n));
    }
    free(table);
    free(hashes);
    free(seen_query);
    return duplicate;
nomem:
    free(table);
    free(hashes);
    free(seen_query);
    return -1;
}

static PyObject *join(PyObject *self, PyObject *args)
{
    PyObject *capsule, *rows_obj, *chunks, *result = NULL, *out = NULL;
    Py_buffer qbuf = {0}, rowbuf = {0};
    int large, duplicate = 0;
    column c = {0};
    if (!PyArg_ParseTuple(args, "Oy*OOp", &capsule, &qbuf, &rows_obj, &chunks, &large))
        return NULL;
    const judgments *j = PyCapsule_GetPointer(capsule, "cranfield.doc_join.judgments");
    if (j == NULL)
        goto done;
    if (rows_obj != Py_None && PyObject_GetBuffer(rows_obj, &rowbuf, PyBUF_SIMPLE) < 0)
        goto done;
    Py_ssize_t n = qbuf.len / 8;
    const int64_t *qi = qbuf.buf, *rows = rows_obj != Py_None ? rowbuf.buf : NULL;
    if (column_init(&c, chunks, large) < 0)
        goto done;
    Py_ssize_t length = c.length;
    if (qbuf.len % 8 || n >= INT32_MAX || (rows ? rowbuf.len != n * 8 : n != length)) {
        PyErr_SetString(PyExc_ValueError, "join: qi and rows must be int64 buffers, one item per kept row");
        goto done;
    }
    int64_t low = 0, high = 0; /* the ranges checked branch-free (a vectorised pass) */
    for (Py_ssize_t k = 0; k < n; k++) {
        low = qi[k] < low ? qi[k] : low;
        high = qi[k] > high ? qi[k] : high;
    }
    int bad = n > 0 && (low < 0 || high >= j->n_queries);
    for (Py_ssize_t k = 0; rows && k < n; k++)
        bad |= rows[k] < 0 || rows[k] >= length;
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "join: query code or row out of range");
        goto done;
    }
    out = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (out == NULL)
        goto done;
    int64_t *rel = (int64_t *)PyByteArray_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    duplicate = join_rows(j, &c, qi, rows, n, rel);
    Py_END_ALLOW_THREADS
    if (duplicate < 0)
        PyErr_NoMemory();
    else
        result = Py_BuildValue("(OO)", out, duplicate ? Py_True : Py_False);
done:
    Py_XDECREF(out);
    column_release(&c);
    PyBuffer_Release(&qbuf);
    PyBuffer_Release(&rowbuf);
    return result;
}

/* ------------------------------------------------------------------------------ tie order */

static PyObject *tie_order(PyObject *self, PyObject *args)
{
    Py_buffer rbuf = {0}, bbuf = {0};
    int large;
    PyObject *out = NULL, *chunks;
    text_t *texts = NULL, *tmp = NULL;
    column c = {0};
    if (!PyArg_ParseTuple(args, "Opy*y*", &chunks, &large, &rbuf, &bbuf))
        return NULL;
    Py_ssize_t m = rbuf.len / 8;
    const int64_t *rows = rbuf.buf, *block = bbuf.buf;
    if (column_init(&c, chunks, large) < 0)
        goto done;
    Py_ssize_t length = c.length;
    if (rbuf.len % 8 || bbuf.len != rbuf.len) {
        PyErr_SetString(PyExc_ValueError, "tie_order: rows and block must be int64 buffers of one length");
        goto done;
    }
    for (Py_ssize_t k = 0; k < m; k++)
        if (rows[k] < 0 || rows[k] >= length || (k && block[k] < block[k - 1])) {
            PyErr_SetString(PyExc_ValueError, "tie_order: row out of range or blocks not in order");
            goto done;
        }
    texts = PyMem_RawMalloc(((size_t)m + 1) * sizeof(text_t));
    tmp = PyMem_RawMalloc(((size_t)m + 1) * sizeof(text_t));
    out = PyByteArray_FromStringAndSize(NULL, m * 8);
    if (texts == NULL || tmp == NULL || out == NULL) {
        if (out == NULL && !PyErr_Occurred())
            PyErr_NoMemory();
        else if (out != NULL)
            PyErr_NoMemory();
        Py_CLEAR(out);
        goto done;
    }
    int64_t *order = (int64_t *)PyByteArray_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < m; k++) {
        cell(&c, rows[k], &texts[k].p, &texts[k].n);
        texts[k].position = k;
    }
    for (Py_ssize_t i = 0; i < m;) {
        Py_ssize_t k = i + 1;
        while (k < m && block[k] == block[i])
            k++;
        sort_texts(texts + i, tmp, k - i);
        i = k;
    }
    for (Py_ssize_t k = 0; k < m; k++)
        order[k] = texts[k].position;
    Py_END_ALLOW_THREADS
done:
    PyMem_RawFree(texts);
    PyMem_RawFree(tmp);
    column_release(&c);
    PyBuffer_Release(&rbuf);
    PyBuffer_Release(&bbuf);
    return out;
}

static PyMethodDef methods[] = {
    {"index", index_judgments, METH_VARARGS,
     "index(q, rel, chunks, large, n_queries[, filled]) -> (index capsule for join(), "
     "duplicate); only the first `filled` judgments inserted when given (the others by fill())."},
    {"fill", fill, METH_VARARGS,
     "fill(index, q, first, stop) -> duplicate: inserts judgments first .. stop - 1 (see index's filled)."},
    {"join", join, METH_VARARGS,
     "join(index, qi, rows, chunks, large) -> (rel int64 bytearray, duplicate); chunks: (offsets, data, "
     "offset, length) of each chunk of an Arrow string column."},
    {"tie_order", tie_order, METH_VARARGS,
     "tie_order(chunks, large, rows, block) -> int64 bytearray permutation."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "cranfield._native.doc_join",
    "A run's docnos joined with prepared qrels on their bytes (see doc_join.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_doc_join(void)
{
    return PyModule_Create(&module);
}
