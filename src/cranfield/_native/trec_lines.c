/* cranfield._native.trec_lines: trec_eval's per-query lines, "%-22s\t%s\t%6.4f\n", written in
 * one pass (cranfield.retrieval.trec_text.iter_lines takes it where it is built):
 *
 *   lines(heads, m, qids, n, columns, kinds, first, stop) -> bytes or None
 *
 * heads: the m measure names as printed (padded), qids: the n query ids, both numpy bytes (S)
 * arrays whose items end at their trailing NULs (as trec_text.strings reads them); columns: m buffers of
 * n values, kinds[j] saying how column j is printed: 'f' float64 as C's "%6.4f", 'd' float64 as
 * "%ld" of its integer part, 's' fixed-width bytes (a numpy S array) up to its trailing NULs.
 * The text of queries first .. stop - 1, each query's m lines in column order. None where a 'd'
 * value is outside int64 (the caller checks first and takes its own path for those).
 *
 * "%6.4f": a value whose scaled product v * 10^4 is decided (finite, |x| < 2^30 and not within
 * 1e-6 of a halfway point: the double product is within 1.2e-7 of the exact one, so rounding
 * it to nearest gives the exactly rounded value) is written from that integer; any other value
 * (NaN, infinities, halfway cases, huge values) by snprintf, which rounds the exact binary value
 * as trec_eval's printf does. The same rule as trec_text.fixed4, so both paths agree byte for
 * byte (tests/retrieval/test_trec_lines.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    char *data;
    size_t size, capacity;
} text_t;

/* Room for `more` bytes; 0 when memory runs out. */
static int reserve(text_t *t, size_t more)
{
    if (t->size + more <= t->capacity)
        return 1;
    size_t capacity = t->capacity ? t->capacity : 1 << 16;
    while (capacity < t->size + more)
        capacity *= 2;
    char *data = realloc(t->data, capacity);
    if (data == NULL)
        return 0;
    t->data = data;
    t->capacity = capacity;
    return 1;
}

/* The decimal digits of u, right to left ending at end; returns the first. */
static char *digits(uint64_t u, char *end)
{
    do {
        *--end = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    return end;
}

/* "%6.4f" of v into out (at least 64 bytes here; snprintf's longest text, 1e308's, is ~320:
 * those go through `wide`); returns the length, or -1 if it must be written by snprintf into a
 * larger buffer. */
static int fixed4(double v, char *out)
{
    double x = v * 10000.0;
    if (isfinite(v) && fabs(x) < 1073741824.0 && fabs(x - floor(x) - 0.5) > 1e-6) {
        uint64_t whole = (uint64_t)fabs(rint(x));
        char buffer[32], *end = buffer + sizeof buffer, *p = end;
        uint64_t fraction = whole % 10000;
        for (int i = 0; i < 4; i++) {
            *--p = (char)('0' + fraction % 10);
            fraction /= 10;
        }
        *--p = '.';
        p = digits(whole / 10000, p);
        if (signbit(v))
            *--p = '-';
        memcpy(out, p, (size_t)(end - p));
        return (int)(end - p);
    }
    if (!isfinite(v) || fabs(v) < 1e40)
        return snprintf(out, 64, "%6.4f", v);
    return -1;
}

/* The value of row q of column j, with its newline; 1 done, 0 no memory, -1 declined. */
static int value(text_t *t, const Py_buffer *column, char kind, Py_ssize_t q)
{
    char small[64];
    int length;
    if (kind == 's') {
        const char *s = (const char *)column->buf + q * column->itemsize;
        Py_ssize_t size = column->itemsize;
        while (size > 0 && s[size - 1] == '\0')
            size--;
        if (!reserve(t, (size_t)size + 1))
            return 0;
        memcpy(t->data + t->size, s, (size_t)size);
        t->size += (size_t)size;
    } else {
        double v = ((const double *)column->buf)[q];
        if (kind == 'd') {
            if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
                return -1;
            int64_t i = (int64_t)v;
            char *end = small + sizeof small, *p = digits(i < 0 ? 0 - (uint64_t)i : (uint64_t)i, end);
            if (i < 0)
                *--p = '-';
            length = (int)(end - p);
            memmove(small, p, (size_t)length);
        } else if ((length = fixed4(v, small)) < 0) {
            length = snprintf(NULL, 0, "%6.4f", v);
            if (!reserve(t, (size_t)length + 2))
                return 0;
            snprintf(t->data + t->size, (size_t)length + 1, "%6.4f", v);
            t->size += (size_t)length;
            t->data[t->size++] = '\n';
            return 1;
        }
        if (!reserve(t, (size_t)length + 1))
            return 0;
        memcpy(t->data + t->size, small, (size_t)length);
        t->size += (size_t)length;
    }
    t->data[t->size++] = '\n';
    return 1;
}

typedef struct {
    Py_ssize_t m, n;
    const char **head, **qid;
    Py_ssize_t *head_size, *qid_size;
    Py_buffer *columns;
    const char *kinds;
} table_t;

/* The lines of queries first .. stop - 1 into t: 1 done, 0 no memory, -1 declined. */
static int write_lines(const table_t *table, Py_ssize_t first, Py_ssize_t stop, text_t *t)
{
    for (Py_ssize_t q = first; q < stop; q++) {
        for (Py_ssize_t j = 0; j < table->m; j++) {
            size_t head = (size_t)table->head_size[j], qid = (size_t)table->qid_size[q];
            if (!reserve(t, head + qid + 2))
                return 0;
            memcpy(t->data + t->size, table->head[j], head);
            t->size += head;
            t->data[t->size++] = '\t';
            memcpy(t->data + t->size, table->qid[q], qid);
            t->size += qid;
            t->data[t->size++] = '\t';
            int done = value(t, &table->columns[j], table->kinds[j], q);
            if (done <= 0)
                return done;
        }
    }
    return 1;
}

/* Pointers and sizes (trailing NULs dropped) of the n items of a fixed-width bytes buffer (a
 * numpy S array), held in *view; 0 on error (raised). */
static int fixed_width(PyObject *array, Py_ssize_t n, Py_buffer *view, const char **data, Py_ssize_t *size)
{
    if (PyObject_GetBuffer(array, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return 0;
    if (view->itemsize <= 0 || view->len != n * view->itemsize || view->format == NULL ||
        view->format[strlen(view->format) - 1] != 's') {
        PyBuffer_Release(view);
        view->obj = NULL;
        PyErr_SetString(PyExc_ValueError, "lines: expected a numpy bytes (S) array of the right length");
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        data[i] = (const char *)view->buf + i * view->itemsize;
        size[i] = view->itemsize;
        while (size[i] > 0 && data[i][size[i] - 1] == '\0')
            size[i]--;
    }
    return 1;
}

/* The column buffers, checked against their kinds and the number of queries; 0 on error. */
static int column_buffers(PyObject *columns, table_t *table, Py_ssize_t *got)
{
    for (*got = 0; *got < table->m; (*got)++) {
        Py_buffer *view = &table->columns[*got];
        char kind = table->kinds[*got];
        if (PyObject_GetBuffer(PyList_GET_ITEM(columns, *got), view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
            return 0;
        int ok = kind == 's' ? view->itemsize > 0 && view->len == table->n * view->itemsize
                 : (kind == 'f' || kind == 'd') && view->itemsize == 8 && view->format != NULL &&
                       strcmp(view->format, "d") == 0 && view->len == table->n * 8;
        if (!ok) {
            PyBuffer_Release(view);
            PyErr_SetString(PyExc_ValueError, "lines: a column does not match its kind or the number of queries");
            return 0;
        }
    }
    return 1;
}

static PyObject *lines(PyObject *self, PyObject *args)
{
    PyObject *heads, *qids, *columns, *result = NULL;
    const char *kinds;
    Py_ssize_t kinds_size, first, stop, m, n, got = 0;
    if (!PyArg_ParseTuple(args, "OnOnO!y#nn", &heads, &m, &qids, &n, &PyList_Type, &columns, &kinds, &kinds_size,
                          &first, &stop))
        return NULL;
    table_t table = {m, n, NULL, NULL, NULL, NULL, NULL, kinds};
    if (m < 0 || n < 0 || PyList_GET_SIZE(columns) != m || kinds_size != m || first < 0 || stop > n || first > stop) {
        PyErr_SetString(PyExc_ValueError, "lines: heads, columns and kinds must match; 0 <= first <= stop <= n");
        return NULL;
    }
    Py_buffer head_view = {0}, qid_view = {0};
    table.head = PyMem_Calloc((size_t)m + 1, sizeof(char *));
    table.head_size = PyMem_Calloc((size_t)m + 1, sizeof(Py_ssize_t));
    table.qid = PyMem_Calloc((size_t)n + 1, sizeof(char *));
    table.qid_size = PyMem_Calloc((size_t)n + 1, sizeof(Py_ssize_t));
    table.columns = PyMem_Calloc((size_t)m + 1, sizeof(Py_buffer));
    text_t t = {NULL, 0, 0};
    if (!table.head || !table.head_size || !table.qid || !table.qid_size || !table.columns) {
        PyErr_NoMemory();
        goto done;
    }
    if (!fixed_width(heads, m, &head_view, table.head, table.head_size) ||
        !fixed_width(qids, n, &qid_view, table.qid, table.qid_size) || !column_buffers(columns, &table, &got))
        goto done;
    int written;
    Py_BEGIN_ALLOW_THREADS
    written = write_lines(&table, first, stop, &t);
    Py_END_ALLOW_THREADS
    if (written == 0)
        PyErr_NoMemory();
    else if (written < 0)
        result = Py_NewRef(Py_None);
    else
        result = PyBytes_FromStringAndSize(t.data ? t.data : "", (Py_ssize_t)t.size);
done:
    for (Py_ssize_t j = 0; j < got; j++)
        PyBuffer_Release(&table.columns[j]);
    if (head_view.obj)
        PyBuffer_Release(&head_view);
    if (qid_view.obj)
        PyBuffer_Release(&qid_view);
    free(t.data);
    PyMem_Free(table.head);
    PyMem_Free(table.head_size);
    PyMem_Free(table.qid);
    PyMem_Free(table.qid_size);
    PyMem_Free(table.columns);
    return result;
}

static PyMethodDef methods[] = {
    {"lines", lines, METH_VARARGS, "trec_eval's per-query lines of queries first .. stop - 1, or None."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "cranfield._native.trec_lines",
    "trec_eval's per-query lines in one pass (see the source's head comment).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_trec_lines(void)
{
    return PyModule_Create(&module);
}
