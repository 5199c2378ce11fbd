/* cranfield._native.dict_columns: the columns of a {qid: {docno: value}} dict, for Run.from_dict
 * and Qrels.from_dict:
 *
 *   columns(run) -> (qids, counts, docnos, scores, qid_rows, docno_rows) or None: Run.from_dict's
 *       columns (*_rows: Arrow string buffers);
 *   columns(qrels, True) -> the same for Qrels.from_dict (int64 rels).
 *
 * It accepts only what the Python path accepts without question (the checks of dict_ids.h: exact
 * dicts, exact str ids, finite float or int64 scores, int64 relevances); on anything else it
 * returns None and the Python path raises its own error with its own text.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "dict_ids.h"

/* ------------------------------------------------------------------------------ columns */

/* Fill the columns of columns(): 1 done, 0 declined. `values` holds float64 scores, or int64
 * relevances when `relevance` is set. */
static int fill_columns(PyObject *run, PyObject *qids, int64_t *counts, PyObject *docnos, void *values, int relevance)
{
    Py_ssize_t pos = 0, n = 0, k = 0;
    PyObject *qid, *docs, *docno, *value;
    while (PyDict_Next(run, &pos, &qid, &docs)) {
        if (!PyDict_CheckExact(docs))
            return 0;
        if (PyDict_GET_SIZE(docs) == 0)
            continue;
        if (!id_ok(qid) || n >= PyList_GET_SIZE(qids))
            return 0;
        PyList_SET_ITEM(qids, n, Py_NewRef(qid));
        counts[n++] = PyDict_GET_SIZE(docs);
        Py_ssize_t inner = 0;
        while (PyDict_Next(docs, &inner, &docno, &value)) {
            if (k >= PyList_GET_SIZE(docnos) || !id_ok(docno))
                return 0;
            if (relevance ? !int64_ok(value, (int64_t *)values + k) : !score_ok(value, (double *)values + k))
                return 0;
            PyList_SET_ITEM(docnos, k++, Py_NewRef(docno));
        }
    }
    return n == PyList_GET_SIZE(qids) && k == PyList_GET_SIZE(docnos);
}

/* The Arrow string array of the ids in `ids` (checked by id_ok), each repeated repeat[i] times
 * (once without `repeat`): (offsets as int32 bytes, UTF-8 text), or None when the text passes
 * int32 offsets (the caller converts the list then). */
static PyObject *arrow_strings(PyObject *ids, const int64_t *repeat)
{
    Py_ssize_t n = PyList_GET_SIZE(ids), rows = 0, size, text = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t times = repeat ? repeat[i] : 1;
        if (utf8(PyList_GET_ITEM(ids, i), &size) == NULL)
            return NULL;
        rows += times;
        text += times * size;
        if (text > INT32_MAX)
            Py_RETURN_NONE;
    }
    PyObject *offsets = PyByteArray_FromStringAndSize(NULL, (rows + 1) * (Py_ssize_t)sizeof(int32_t));
    PyObject *data = PyByteArray_FromStringAndSize(NULL, text);
    PyObject *result = NULL;
    if (offsets != NULL && data != NULL) {
        int32_t *o = (int32_t *)PyByteArray_AS_STRING(offsets);
        char *d = PyByteArray_AS_STRING(data);
        Py_ssize_t row = 0, at = 0;
        o[0] = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            const char *bytes = utf8(PyList_GET_ITEM(ids, i), &size);
            for (int64_t t = repeat ? repeat[i] : 1; t > 0; t--) {
                memcpy(d + at, bytes, (size_t)size);
                at += size;
                o[++row] = (int32_t)at;
            }
        }
        result = PyTuple_Pack(2, offsets, data);
    }
    Py_XDECREF(offsets);
    Py_XDECREF(data);
    return result;
}

/* columns(mapping, relevance=False) -> (qids, counts, docnos, values) or None: the columns of
 * Run.from_dict (relevance false: every value a score, as float64 bytes) or Qrels.from_dict
 * (relevance true: every value an exact int within int64, as int64 bytes; a bool, a float or a
 * subclass declines) -- the ids of the queries with rows, their numbers of rows as int64 bytes,
 * every docno, every value, in the dict's order; then the qid of every row and the docnos as
 * Arrow string buffers (see arrow_strings) -- checked as rank() checks them; None to let the
 * Python path run (an empty mapping included). */
static PyObject *run_columns(PyObject *self, PyObject *args)
{
    PyObject *run;
    int relevance = 0;
    if (!PyArg_ParseTuple(args, "O|p", &run, &relevance))
        return NULL;
    if (!PyDict_CheckExact(run))
        Py_RETURN_NONE;
    Py_ssize_t pos = 0, n_queries = 0, rows = 0;
    PyObject *qid, *docs, *qids = NULL, *docnos = NULL, *counts = NULL, *values = NULL, *result = NULL;
    while (PyDict_Next(run, &pos, &qid, &docs)) {
        if (!PyDict_CheckExact(docs))
            Py_RETURN_NONE;
        n_queries += PyDict_GET_SIZE(docs) > 0;
        rows += PyDict_GET_SIZE(docs);
    }
    if (rows == 0)
        Py_RETURN_NONE;
    qids = PyList_New(n_queries);
    docnos = PyList_New(rows);
    counts = PyByteArray_FromStringAndSize(NULL, n_queries * (Py_ssize_t)sizeof(int64_t));
    values = PyByteArray_FromStringAndSize(NULL, rows * (Py_ssize_t)8); /* int64 or float64 */
    if (qids && docnos && counts && values) {
        if (fill_columns(run, qids, (int64_t *)PyByteArray_AS_STRING(counts), docnos,
                         PyByteArray_AS_STRING(values), relevance)) {
            PyObject *qid_rows = arrow_strings(qids, (const int64_t *)PyByteArray_AS_STRING(counts));
            PyObject *docno_rows = qid_rows ? arrow_strings(docnos, NULL) : NULL;
            if (docno_rows != NULL)
                result = PyTuple_Pack(6, qids, counts, docnos, values, qid_rows, docno_rows);
            Py_XDECREF(qid_rows);
            Py_XDECREF(docno_rows);
        } else
            result = Py_NewRef(Py_None); /* (unfilled list items are NULL: freed as such) */
    }
    Py_XDECREF(qids);
    Py_XDECREF(docnos);
    Py_XDECREF(counts);
    Py_XDECREF(values);
    return result;
}

static PyMethodDef methods[] = {
    {"columns", run_columns, METH_VARARGS,
     "columns(mapping, relevance=False) -> (qids, counts, docnos, values, qid_rows, docno_rows) of Run.from_dict "
     "(float64 scores) or Qrels.from_dict (relevance: int64), or None to let the Python path run."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "cranfield._native.dict_columns",
    "The columns of a {qid: {docno: value}} dict (see dict_columns.c).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit_dict_columns(void)
{
    return PyModule_Create(&module);
}
