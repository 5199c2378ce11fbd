/* The docno bytes of an Arrow string column for doc_join.c: a row's bytes (cell), their hash
 * (hash_bytes) and the checked buffers (column_init). */
#ifndef CRANFIELD_DOC_BYTES_H
#define CRANFIELD_DOC_BYTES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const char *data;
    const void *offsets;
    Py_ssize_t offset, length;
    int large;
} column;

static inline void cell(const column *c, int64_t row, const char **p, int64_t *n)
{
    int64_t a, b, i = row + c->offset;
    if (c->large) {
        a = ((const int64_t *)c->offsets)[i];
        b = ((const int64_t *)c->offsets)[i + 1];
    } else {
        a = ((const int32_t *)c->offsets)[i];
        b = ((const int32_t *)c->offsets)[i + 1];
    }
    *p = c->data + a;
    *n = b - a;
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

/* Check the buffers of an Arrow string column; 0 or -1 with an exception set. */
static int column_init(column *c, Py_buffer *offsets, Py_buffer *data, Py_ssize_t offset, Py_ssize_t length,
                       int large)
{
    size_t width = large ? 8 : 4;
    c->data = (const char *)data->buf;
    c->offsets = offsets->buf;
    c->offset = offset;
    c->length = length;
    c->large = large;
    if (offset < 0 || length < 0 || (size_t)offsets->len < (size_t)(offset + length + 1) * width) {
        PyErr_SetString(PyExc_ValueError, "doc_join: offsets buffer too short");
        return -1;
    }
    const char *first, *last;
    int64_t n;
    if (length == 0)
        return 0;
    cell(c, 0, &first, &n);
    cell(c, length - 1, &last, &n);
    if (first < c->data || last + n > c->data + data->len) {
        PyErr_SetString(PyExc_ValueError, "doc_join: offsets outside the data buffer");
        return -1;
    }
    return 0;
}

#endif
