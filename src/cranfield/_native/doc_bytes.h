/* The docno bytes of an Arrow string column for doc_join.c: a row's bytes (cell), their hash
 * (hash_bytes), their byte-wise order (sort_texts) and the checked buffers (column_init,
 * column_release). A column is the chunks of an Arrow chunked array, each read in place
 * (combining them would copy every docno). */
#ifndef CRANFIELD_DOC_BYTES_H
#define CRANFIELD_DOC_BYTES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const char *data;
    const void *offsets;
    int64_t offset; /* the chunk's Arrow offset (its first row's entry in offsets) */
    int64_t start;  /* the column's row number of the chunk's first row */
} piece;

typedef struct {
    piece *pieces;       /* the non-empty chunks, by start; pieces[n_pieces].start = length */
    Py_ssize_t n_pieces, length;
    int large;           /* 64-bit offsets (large_string, large_binary) */
    Py_buffer *buffers;  /* offsets and data of every chunk, held until column_release */
    Py_ssize_t n_buffers;
} column;

/* The chunk holding `row` (0 <= row < length): a binary search over the chunk starts (one chunk:
 * none). */
static inline const piece *piece_of(const column *c, int64_t row)
{
    Py_ssize_t low = 0, high = c->n_pieces - 1;
    while (low < high) {
        Py_ssize_t middle = (low + high + 1) >> 1;
        if (c->pieces[middle].start <= row)
            low = middle;
        else
            high = middle - 1;
    }
    return c->pieces + low;
}

/* Entry i of a chunk's offsets (64-bit when large). */
static inline int64_t offset_at(const void *offsets, int large, int64_t i)
{
    return large ? ((const int64_t *)offsets)[i] : ((const int32_t *)offsets)[i];
}

static inline void cell(const column *c, int64_t row, const char **p, int64_t *n)
{
    const piece *s = piece_of(c, row);
    int64_t i = row - s->start + s->offset, a = offset_at(s->offsets, c->large, i);
    *p = s->data + a;
    *n = offset_at(s->offsets, c->large, i + 1) - a;
}

/* The rows of one chunk, for the hot loops: a row inside is read without finding its chunk (a
 * query's rows are nearly always in one chunk: the join takes the span of its first row); a row
 * outside falls back to cell. */
typedef struct {
    const char *data;
    const void *offsets;
    int64_t first, count, offset; /* rows first .. first + count - 1; row r is offsets entry r - first + offset */
    int large;
} span;

static inline span span_of(const column *c, int64_t row)
{
    const piece *s = piece_of(c, row);
    span out = {s->data, s->offsets, s->start, s[1].start - s->start, s->offset, c->large};
    return out;
}

static inline void span_cell(const column *c, const span *s, int64_t row, const char **p, int64_t *n)
{
    uint64_t i = (uint64_t)(row - s->first);
    if (i >= (uint64_t)s->count) {
        cell(c, row, p, n);
        return;
    }
    int64_t k = (int64_t)i + s->offset, a = offset_at(s->offsets, s->large, k);
    *p = s->data + a;
    *n = offset_at(s->offsets, s->large, k + 1) - a;
}

/* A word holding the last n (1 to 7) bytes of an id of `total` bytes ending at p + n, read with whole
 * loads, overlapping ones (a byte-wise copy would stall the load that follows it): the id's last 8
 * bytes when it has 8. Only a hash input: a function of the id's bytes, on any byte order. */
static inline uint64_t tail_word(const char *p, int64_t n, int64_t total)
{
    uint64_t w;
    if (total >= 8) {
        memcpy(&w, p + n - 8, 8);
        return w;
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + n - 4, 4);
        return a | ((uint64_t)b << 32);
    }
    return (uint64_t)(unsigned char)p[0] | ((uint64_t)(unsigned char)p[n >> 1] << 8) |
           ((uint64_t)(unsigned char)p[n - 1] << 16);
}

static inline uint64_t hash_bytes(const char *p, int64_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ (uint64_t)n, w;
    int64_t total = n;
    while (n >= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0x94D049BB133111EBULL;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n > 0)
        h = (h ^ tail_word(p, n, total)) * 0x94D049BB133111EBULL;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    return h;
}

/* Docnos in byte-wise descending order, for doc_join.c's tie_order: a docno's bytes and its position. */
typedef struct {
    const char *p;
    int64_t n, position;
} text_t;

/* docno descending, byte-wise */
static inline int before(const text_t *x, const text_t *y)
{
    int c = memcmp(x->p, y->p, (size_t)(x->n < y->n ? x->n : y->n));
    return c > 0 || (c == 0 && x->n > y->n);
}

static void sort_texts(text_t *a, text_t *tmp, int64_t n)
{
    if (n < 16) {
        for (int64_t i = 1; i < n; i++) {
            text_t x = a[i];
            int64_t k = i;
            while (k > 0 && before(&x, &a[k - 1])) {
                a[k] = a[k - 1];
                k--;
            }
            a[k] = x;
        }
        return;
    }
    int64_t h = n / 2;
    sort_texts(a, tmp, h);
    sort_texts(a + h, tmp, n - h);
    if (!before(&a[h], &a[h - 1]))
        return;
    memcpy(tmp, a, (size_t)h * sizeof(text_t));
    int64_t i = 0, k = h, o = 0;
    while (i < h && k < n)
        a[o++] = before(&a[k], &tmp[i]) ? a[k++] : tmp[i++];
    while (i < h)
        a[o++] = tmp[i++];
}

/* Releases the buffers of a column (with the GIL held) and frees its chunk table. */
static void column_release(column *c)
{
    for (Py_ssize_t i = 0; i < c->n_buffers; i++)
        PyBuffer_Release(&c->buffers[i]);
    PyMem_RawFree(c->buffers);
    PyMem_RawFree(c->pieces);
    c->buffers = NULL;
    c->pieces = NULL;
    c->n_buffers = c->n_pieces = c->length = 0;
}

/* One chunk (offsets, data, offset, length) checked and added; 0 or -1 with an exception set. */
static int column_add(column *c, PyObject *chunk)
{
    Py_ssize_t offset, length;
    Py_buffer *offsets = &c->buffers[c->n_buffers], *data = offsets + 1;
    size_t width = c->large ? 8 : 4;
    if (!PyTuple_Check(chunk) || PyTuple_GET_SIZE(chunk) != 4) {
        PyErr_SetString(PyExc_TypeError, "doc_join: a chunk is a tuple (offsets, data, offset, length)");
        return -1;
    }
    offset = PyLong_AsSsize_t(PyTuple_GET_ITEM(chunk, 2));
    length = PyLong_AsSsize_t(PyTuple_GET_ITEM(chunk, 3));
    if ((offset == -1 || length == -1) && PyErr_Occurred())
        return -1;
    if (PyObject_GetBuffer(PyTuple_GET_ITEM(chunk, 0), offsets, PyBUF_SIMPLE) < 0)
        return -1;
    if (PyObject_GetBuffer(PyTuple_GET_ITEM(chunk, 1), data, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(offsets);
        return -1;
    }
    c->n_buffers += 2;
    if (offset < 0 || length < 0 || (size_t)offsets->len < (size_t)(offset + length + 1) * width) {
        PyErr_SetString(PyExc_ValueError, "doc_join: offsets buffer too short");
        return -1;
    }
    if (length == 0)
        return 0;
    piece *s = &c->pieces[c->n_pieces];
    s->data = (const char *)data->buf;
    s->offsets = offsets->buf;
    s->offset = offset;
    s->start = c->length;
    int64_t first = offset_at(s->offsets, c->large, offset), last = offset_at(s->offsets, c->large, offset + length);
    if (first < 0 || last < first || last > (int64_t)data->len) {
        PyErr_SetString(PyExc_ValueError, "doc_join: offsets outside the data buffer");
        return -1;
    }
    c->n_pieces++;
    c->length += length;
    return 0;
}

/* The column of a sequence of chunks, each (offsets, data, offset, length) of an Arrow string
 * array (large: 64-bit offsets); its buffers are held until column_release. 0, or -1 with an
 * exception set (and nothing held). Offsets are assumed non-decreasing within a chunk, as Arrow's. */
static int column_init(column *c, PyObject *chunks, int large)
{
    memset(c, 0, sizeof *c);
    c->large = large;
    PyObject *seq = PySequence_Fast(chunks, "doc_join: chunks must be a sequence");
    if (seq == NULL)
        return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    c->pieces = PyMem_RawCalloc((size_t)n + 1, sizeof(piece));
    c->buffers = PyMem_RawCalloc(2 * (size_t)n + 1, sizeof(Py_buffer));
    if (c->pieces == NULL || c->buffers == NULL) {
        Py_DECREF(seq);
        column_release(c);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (column_add(c, PySequence_Fast_GET_ITEM(seq, i)) < 0) {
            Py_DECREF(seq);
            column_release(c);
            return -1;
        }
    Py_DECREF(seq);
    c->pieces[c->n_pieces].start = c->length; /* the sentinel */
    return 0;
}

#endif
