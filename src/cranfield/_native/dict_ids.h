/* The checks shared by the dict kernels (dict_run.c, dict_columns.c): which ids and values every
 * path takes as they are. Each returns 0 (decline: the Python path runs and words the error) with
 * no exception left set. */
#ifndef CRANFIELD_DICT_IDS_H
#define CRANFIELD_DICT_IDS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>


/* 1 if `s` is an id every path accepts as is (exact str, not empty, no ASCII blank or NUL, UTF-8
 * encodable), else 0 (the caller declines; no exception is left set). */
static const unsigned char BLANK[256] = {[0] = 1, ['\t'] = 1, ['\n'] = 1, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1, [' '] = 1};

/* 1 if no byte of the ASCII text c[0..n) is below 0x21 (every blank and NUL is), 8 bytes at a
 * time: a byte b < 0x80 has its high bit set in (b - 0x21) & ~b exactly when b < 0x21, and a borrow
 * into the next byte happens only after such a byte, so the word test is exact for existence.
 * Loads stay within the text: the last word overlaps the one before; a shorter text is read as two
 * overlapping halves, or byte by byte (every byte of the word is one of the text's). */
static inline uint64_t below_blank(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ULL;
    return (w - ones * 0x21) & ~w & (ones * 0x80);
}

static inline int ascii_above_blank(const unsigned char *c, Py_ssize_t n)
{
    uint64_t low = 0, w;
    if (n >= 8) {
        Py_ssize_t i = 0;
        for (; i + 8 <= n; i += 8) {
            memcpy(&w, c + i, 8);
            low |= below_blank(w);
        }
        if (i < n) {
            memcpy(&w, c + n - 8, 8);
            low |= below_blank(w);
        }
        return low == 0;
    }
    if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, c, 4);
        memcpy(&b, c + n - 4, 4);
        return below_blank(a | ((uint64_t)b << 32)) == 0;
    }
    unsigned char x = n > 0 ? c[0] : 'A', y = n > 0 ? c[n >> 1] : 'A', z = n > 0 ? c[n - 1] : 'A';
    return x > ' ' && y > ' ' && z > ' ';
}

static int id_ok(PyObject *s)
{
    if (!PyUnicode_CheckExact(s))
        return 0;
    if (PyUnicode_IS_COMPACT_ASCII(s)) { /* the usual id: its bytes follow the header */
        const unsigned char *c = (const unsigned char *)(((PyASCIIObject *)s) + 1);
        Py_ssize_t n = ((PyASCIIObject *)s)->length;
        if (ascii_above_blank(c, n))
            return n > 0;
        unsigned char blank = 0; /* a control byte or a blank: which, by the table */
        for (Py_ssize_t i = 0; i < n; i++)
            blank |= BLANK[c[i]];
        return n > 0 && !blank;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) {
        PyErr_Clear();
        return 0;
    }
#endif
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    if (n == 0)
        return 0;
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    if (kind == PyUnicode_1BYTE_KIND) {
        const unsigned char *c = (const unsigned char *)data;
        for (Py_ssize_t i = 0; i < n; i++)
            if (c[i] <= ' ' && (c[i] == ' ' || (c[i] >= '\t' && c[i] <= '\r') || c[i] == 0))
                return 0;
    } else {
        for (Py_ssize_t i = 0; i < n; i++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, i);
            if (c <= ' ' && (c == ' ' || (c >= '\t' && c <= '\r') || c == 0))
                return 0;
        }
    }
    if (!PyUnicode_IS_ASCII(s) && PyUnicode_AsUTF8AndSize(s, NULL) == NULL) { /* lone surrogates */
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* 1 and *out set if `v` is an exact int (not a bool, not a subclass) within int64, else 0 (no
 * exception left set): a relevance taken as is. */
static int int64_ok(PyObject *v, int64_t *out)
{
    if (!PyLong_CheckExact(v))
        return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    *out = (int64_t)x;
    return 1;
}

/* 1 and *out set if `v` is a score taken as is (finite float, int within int64), else 0. */
static int score_ok(PyObject *v, double *out)
{
    if (PyFloat_CheckExact(v)) {
        double d = PyFloat_AS_DOUBLE(v);
        if (!isfinite(d))
            return 0;
        *out = d;
        return 1;
    }
    int64_t x;
    if (int64_ok(v, &x)) {
        *out = (double)x; /* as numpy's int64 -> float64 (round to nearest) */
        return 1;
    }
    return 0;
}

/* The UTF-8 text of an id already checked by id_ok (cached in the object). */
static const char *utf8(PyObject *s, Py_ssize_t *size)
{
    if (PyUnicode_IS_ASCII(s)) {
        *size = PyUnicode_GET_LENGTH(s);
        return (const char *)PyUnicode_DATA(s);
    }
    return PyUnicode_AsUTF8AndSize(s, size);
}

#endif
