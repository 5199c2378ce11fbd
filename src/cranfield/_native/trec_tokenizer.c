/*
 * cranfield._native.trec_tokenizer: the TREC run/qrels tokenizer in one pass over the bytes.
 *
 * tokenize() reads a block of whole lines and produces the columns of
 * cranfield.io.trec_grammar.parse_lines (the reference grammar, documented there): the kept id
 * fields as Arrow string buffers (offsets + UTF-8 data), the value field as float64 scores or
 * int64 relevance, the first row of each run of equal query ids, the longest id of each kept
 * field, the first row's tag and the lines that hold no row (skipped blank or comment lines).
 *
 * Exactness contract: every decision is made per line, and on ANY line this reader cannot read
 * with certainty exactly as the grammar does (a NUL byte, a lone CR, a blank line the dialect
 * refuses, a wrong number of fields, an id that is not UTF-8, a value outside the number
 * syntax, an integer beyond int64, a score that overflows, underflows or has a leading '+', ...)
 * it returns None for the whole block: the caller then runs the reference parser, which raises
 * the exact error (a '+' or an underflow it reads, where Arrow versions may differ).
 * So the rows are those of the reference, or the error is the reference's.
 *
 * The scan touches no Python object and runs without the GIL, so blocks parse in parallel.
 *
 * Speed (the benchmark's run, 32-byte lines: the scan reads ~1.6 GB/s a core, 2.2x the byte-wise
 * reader it replaced; ~1 GB/s with the outputs' first page faults and the Python wrapper): the
 * field boundaries come from bit masks of 64 bytes at a time (trec_chunks.h: AVX2 or SSE2; a
 * line the masks do not settle goes byte by byte through split_line(), the one definition of a
 * line's fields); the usual score spellings are read a word at a time and ids are moved and
 * compared as words (trec_numbers.h, below); the scan is compiled for a run's rows, a qrels'
 * rows and any layout, and once more for x86-64-v3 where the CPU has it.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trec_chunks.h"
#include "trec_numbers.h"

#define MAX_FORMAT_FIELDS 8 /* a layout's fields (a format has at most 6, and one more shows an extra) */
#define MAX_KEPT 3    /* id fields kept: qid, docno and a diversity qrels' subtopic / a run's sample */

/* ------------------------------------------------------------------------------ byte classes */

enum { C_ASCII, C_HIGH, C_BLANK, C_CR, C_LF, C_NUL };

/* the class of each byte: the blanks of C's isspace (space, TAB, VT, FF; CR and LF apart) */
static unsigned char byte_class[256];

static void init_byte_classes(void)
{
    for (int c = 0; c < 256; c++)
        byte_class[c] = c >= 0x80 ? C_HIGH : C_ASCII;
    byte_class[' '] = byte_class['\t'] = byte_class['\v'] = byte_class['\f'] = C_BLANK;
    byte_class['\r'] = C_CR;
    byte_class['\n'] = C_LF;
    byte_class[0] = C_NUL;
}

/* ------------------------------------------------------------------------------ the layout */

enum { COMMENTS_NONE, COMMENTS_FIRST_FIELD, COMMENTS_FIRST_BYTE };

/* What a line of the format looks like, and what the dialect allows (set by the caller). */
typedef struct Layout {
    int fields;         /* the format's number of fields */
    int exact;          /* exactly `fields` fields (qrels), or at least (runs) */
    int kept[MAX_KEPT]; /* the id fields kept, ascending; kept[0] is the query id (field 0) */
    int n_kept;
    int value;          /* index of the value field */
    int integer;        /* 1: int64 relevance; 0: float64 score */
    int tag;            /* index of the run's tag field, or -1 */
    int comments;       /* COMMENTS_*: which lines are comments */
    int blank_error;    /* a line without fields is an error (else it is skipped) */
    int lone_cr_error;  /* a CR not directly followed by LF is an error (else it is a blank) */
    int wide;           /* int64 offsets (large_string) instead of int32 */
    int heads;          /* the query id written once per run of equal ids (at its first row), not per row */
    const struct Layout *rows; /* RUN_ROWS or QRELS_ROWS where its rows are theirs, else itself */
} Layout;

/* The output columns, written during the scan (allocated before it, at their upper bounds). */
typedef struct {
    char *data[MAX_KEPT];   /* the UTF-8 bytes of each kept id field */
    char *offsets[MAX_KEPT];/* int32 or int64 offsets into data (rows + 1) */
    Py_ssize_t used[MAX_KEPT], longest[MAX_KEPT]; /* bytes written, longest id */
    char *values;           /* float64 or int64 per row */
    int64_t *starts;        /* first row of each run of equal query ids */
    Py_ssize_t n_starts, rows, lines;
    int64_t *skipped;       /* lines without a row (blank or comment), malloc'd, grown on demand */
    Py_ssize_t n_skipped, skipped_capacity;
    Py_ssize_t tag_start, tag_length; /* the first row's tag (tag_start -1: none) */
    const unsigned char *previous_qid; /* the previous row's query id, in the block */
    const unsigned char *block_end;    /* the end of the block (words are read up to it) */
    Py_ssize_t previous_qid_length;
} Columns;

enum { SCAN_OK = 0, SCAN_DECLINE = -1, SCAN_NO_MEMORY = -2 };

/* ------------------------------------------------------------------------------ lines */

/* Splits the line starting at `pos` into fields; returns the position after its LF (or the
 * end of the block), or -1 on a byte fault (NUL, or a lone CR where that is an error). */
static Py_ssize_t split_line(const unsigned char *b, Py_ssize_t pos, Py_ssize_t end, int lone_cr_error,
                             Line *line)
{
    line->count = 0;
    line->high = 0;
    for (;;) {
        int c = C_BLANK;
        for (; pos < end; pos++) { /* the blanks before a field */
            c = byte_class[b[pos]];
            if (c == C_CR && lone_cr_error && (pos + 1 == end || b[pos + 1] != '\n'))
                return -1;
            if (c != C_BLANK && c != C_CR)
                break;
        }
        if (pos == end)
            return end;
        if (c == C_LF)
            return pos + 1;
        if (c == C_NUL)
            return -1;
        Py_ssize_t start = pos;
        int high = 0;
        for (; pos < end && (c = byte_class[b[pos]]) <= C_HIGH; pos++)
            high |= c; /* C_HIGH is 1 */
        line->high |= high;
        if (line->count < MAX_FIELDS) {
            line->start[line->count] = start;
            line->length[line->count] = pos - start;
        }
        line->count++;
    }
}

enum { LINE_ROW, LINE_SKIP, LINE_FAULT };

/* What a line is: a row, a line without one (blank, comment), or a fault. */
static ALWAYS_INLINE int classify_line(const unsigned char *b, Py_ssize_t pos, const Line *line, const Layout *layout)
{
    if (layout->comments == COMMENTS_FIRST_BYTE && line->count && b[pos] == '#')
        return LINE_SKIP;
    if (line->count == 0)
        return layout->blank_error ? LINE_FAULT : LINE_SKIP;
    if (layout->comments == COMMENTS_FIRST_FIELD && b[line->start[0]] == '#')
        return LINE_SKIP;
    if (layout->exact ? line->count != layout->fields : line->count < layout->fields)
        return LINE_FAULT;
    return LINE_ROW;
}

/* Notes a line without a row (its 0-based index in the block). */
static int note_skipped(Columns *out, Py_ssize_t line_index)
{
    if (out->n_skipped == out->skipped_capacity) {
        Py_ssize_t capacity = out->skipped_capacity ? 2 * out->skipped_capacity : 64;
        int64_t *grown = realloc(out->skipped, (size_t)capacity * sizeof *grown);
        if (grown == NULL)
            return SCAN_NO_MEMORY;
        out->skipped = grown;
        out->skipped_capacity = capacity;
    }
    out->skipped[out->n_skipped++] = line_index;
    return SCAN_OK;
}

/* offsets[i] = value, as int64 (wide) or int32 */
static ALWAYS_INLINE void put_offset(char *offsets, Py_ssize_t i, Py_ssize_t value, int wide)
{
    if (wide)
        ((int64_t *)offsets)[i] = value;
    else
        ((int32_t *)offsets)[i] = (int32_t)value;
}

#define ID_SLACK 16 /* bytes past the ids' upper bound: an id of up to 16 bytes is copied as 16 */

/* Copies the id src[0:n] to dst (which has ID_SLACK bytes to spare); `end`: the block's end. */
static ALWAYS_INLINE void copy_id(char *dst, const unsigned char *src, Py_ssize_t n, const unsigned char *end)
{
    if (n <= 16 && end - src >= 16)
        memcpy(dst, src, 16); /* one unaligned 16-byte move */
    else
        memcpy(dst, src, (size_t)n);
}

/* Whether the ids a[0:n] and c[0:n] are equal (a before c in the block that ends at `end`). */
static ALWAYS_INLINE int same_id(const unsigned char *a, const unsigned char *c, Py_ssize_t n, const unsigned char *end)
{
    if (LITTLE_ENDIAN_WORDS && n <= 8 && end - c >= 8)
        return ((load8(a) ^ load8(c)) << (64 - 8 * n)) == 0; /* the n low bytes of the two words */
    return memcmp(a, c, (size_t)n) == 0;
}

/* Appends the kept id fields of a row, each checked as UTF-8; with `heads`, the query id
 * (kept[0]) only at the first row of a run of equal ids (`first`), as the run's n_starts-th id. */
static ALWAYS_INLINE int add_ids(const unsigned char *b, const Line *line, const Layout *layout, Columns *out,
                                 int first)
{
    for (int k = 0; k < layout->n_kept; k++) {
        int j = layout->kept[k];
        const unsigned char *text = b + line->start[j];
        Py_ssize_t length = line->length[j];
        if (line->high && !utf8_valid(text, length))
            return SCAN_DECLINE;
        if (k == 0 && layout->heads && !first)
            continue;
        copy_id(out->data[k] + out->used[k], text, length, out->block_end);
        out->used[k] += length;
        put_offset(out->offsets[k], k == 0 && layout->heads ? out->n_starts : out->rows + 1, out->used[k],
                   layout->wide);
        if (length > out->longest[k])
            out->longest[k] = length;
    }
    return SCAN_OK;
}

/* Notes the row as the first of a query when its query id differs from the previous row's; 1 if so. */
static ALWAYS_INLINE int note_query(const unsigned char *b, const Line *line, Columns *out)
{
    const unsigned char *qid = b + line->start[0];
    Py_ssize_t length = line->length[0];
    int first = out->rows == 0 || length != out->previous_qid_length
                || !same_id(out->previous_qid, qid, length, out->block_end);
    if (first)
        out->starts[out->n_starts++] = out->rows;
    out->previous_qid = qid;
    out->previous_qid_length = length;
    return first;
}

/* Appends a row: its value, its ids, its query start, the tag of the first row. */
static ALWAYS_INLINE int add_row(const unsigned char *b, const Line *line, const Layout *layout, Columns *out)
{
    const unsigned char *token = b + line->start[layout->value];
    Py_ssize_t length = line->length[layout->value];
    int status = layout->integer ? parse_relevance(token, length, (int64_t *)out->values + out->rows)
                                 : parse_score(token, length, b, (double *)out->values + out->rows);
    if (status < 0 || add_ids(b, line, layout, out, note_query(b, line, out)) < 0)
        return SCAN_DECLINE;
    if (out->rows == 0 && layout->tag >= 0) {
        out->tag_start = line->start[layout->tag];
        out->tag_length = line->length[layout->tag];
    }
    out->rows++;
    return SCAN_OK;
}

/* The rows of a run and of a qrels (int32 offsets) as constants: the scan inlined with one of them
 * (scan_rows) compiles to code free of the layout's tests, for nearly every block. */
static const Layout RUN_ROWS = {.fields = 6, .kept = {0, 2}, .n_kept = 2, .value = 4, .integer = 0, .tag = 5};
static const Layout QRELS_ROWS = {.fields = 4, .kept = {0, 2}, .n_kept = 2, .value = 3, .integer = 1, .tag = -1};
static const Layout RUN_HEADS = {.fields = 6, .kept = {0, 2}, .n_kept = 2, .value = 4, .integer = 0, .tag = 5,
                                 .heads = 1};
static const Layout QRELS_HEADS = {.fields = 4, .kept = {0, 2}, .n_kept = 2, .value = 3, .integer = 1, .tag = -1,
                                   .heads = 1};

/* Whether the rows of the two layouts are read alike (the same ids, value and offsets). */
static int same_rows(const Layout *a, const Layout *b)
{
    return a->n_kept == b->n_kept && !memcmp(a->kept, b->kept, sizeof a->kept) && a->value == b->value
        && a->integer == b->integer && a->tag == b->tag && a->wide == b->wide && a->heads == b->heads;
}

/* The rows of one line: split (by its masks, else byte by byte), then read. `rows`: RUN_ROWS,
 * QRELS_ROWS (constants: the code is compiled for that format) or the layout. */
static ALWAYS_INLINE int scan_line(const unsigned char *b, Py_ssize_t size, const ChunkMasks *masks,
                                   Py_ssize_t base, Py_ssize_t *pos, const Layout *layout, Columns *out,
                                   const Layout *rows)
{
    Line line;
    Py_ssize_t next = masks == NULL ? 0
                      : split_line_fast(masks, base, *pos, size, layout->lone_cr_error, &line, rows->fields);
    if (next == 0 && (next = split_line(b, *pos, size, layout->lone_cr_error, &line)) < 0)
        return SCAN_DECLINE;
    int kind = classify_line(b, *pos, &line, layout);
    int status = kind == LINE_ROW ? add_row(b, &line, rows, out)
                 : kind == LINE_SKIP ? note_skipped(out, out->lines) : SCAN_DECLINE;
    out->lines++;
    *pos = next;
    return status;
}

/* The scan: every line of b[0:size], in order, a region of chunks at a time, classified by `classify`
 * (NULL: no masks, every line byte by byte); `rows` as for scan_line(). */
static ALWAYS_INLINE int scan_lines(const unsigned char *b, Py_ssize_t size, const Layout *layout, Columns *out,
                                    ClassifyChunk classify, const Layout *rows)
{
    ChunkMasks masks[REGION_CHUNKS + 1];
    Py_ssize_t pos = 0;
    out->block_end = b + size;
    while (pos < size) {
        Py_ssize_t base = pos & ~(Py_ssize_t)63, end = classify == NULL ? size : base + 64 * REGION_CHUNKS;
        Py_ssize_t chunks = (size - base + 63) / 64 + 1; /* with the one past the end */
        if (classify != NULL)
            classify_region(b, size, base, chunks < REGION_CHUNKS + 1 ? chunks : REGION_CHUNKS + 1, masks, classify);
        while (pos < size && pos < end) {
            int status = scan_line(b, size, classify == NULL ? NULL : masks, base, &pos, layout, out, rows);
            if (status != SCAN_OK)
                return status;
        }
    }
    return SCAN_OK;
}

/* scan_lines() compiled for the rows of a run, of a qrels, or of any layout. */
static ALWAYS_INLINE int scan_rows(const unsigned char *b, Py_ssize_t size, const Layout *layout, Columns *out,
                                   ClassifyChunk classify)
{
    if (layout->rows == &RUN_ROWS)
        return scan_lines(b, size, layout, out, classify, &RUN_ROWS);
    if (layout->rows == &QRELS_ROWS)
        return scan_lines(b, size, layout, out, classify, &QRELS_ROWS);
    if (layout->rows == &RUN_HEADS)
        return scan_lines(b, size, layout, out, classify, &RUN_HEADS);
    if (layout->rows == &QRELS_HEADS)
        return scan_lines(b, size, layout, out, classify, &QRELS_HEADS);
    return scan_lines(b, size, layout, out, classify, layout);
}

static int scan_baseline(const unsigned char *b, Py_ssize_t size, const Layout *layout, Columns *out,
                         ClassifyChunk classify)
{
    /* the byte-wise scan (no classifier) compiled apart, free of the masks */
    return classify == NULL ? scan_rows(b, size, layout, out, NULL) : scan_rows(b, size, layout, out, classify);
}

#if HAVE_AVX2_VARIANT
/* The scan compiled for x86-64-v3 (AVX2, BMI1/2, POPCNT: about 9% fewer instructions), for the
 * CPUs that have them (classifier "avx2"). */
__attribute__((target("avx2,bmi,bmi2,popcnt"))) static int scan_v3(const unsigned char *b, Py_ssize_t size,
                                                                     const Layout *layout, Columns *out)
{
    return scan_rows(b, size, layout, out, classify_chunk_avx2);
}
#endif

/* The scan with the classifier in use. Runs without the GIL. */
static int scan_block(const unsigned char *b, Py_ssize_t size, const Layout *layout, Columns *out)
{
#if HAVE_AVX2_VARIANT
    if (CLASSIFIERS[classifier].classify == classify_chunk_avx2)
        return scan_v3(b, size, layout, out);
#endif
    return scan_baseline(b, size, layout, out, CLASSIFIERS[classifier].classify);
}

/* ------------------------------------------------------------------------------ Python */

/* The Python objects of the output: bytes allocated at their upper bounds before the scan
 * (pages that are never written are never touched), cut to size after it. */
typedef struct {
    PyObject *data[MAX_KEPT], *offsets[MAX_KEPT], *values, *starts;
} Outputs;

static void release_outputs(Outputs *o)
{
    for (int k = 0; k < MAX_KEPT; k++) {
        Py_CLEAR(o->data[k]);
        Py_CLEAR(o->offsets[k]);
    }
    Py_CLEAR(o->values);
    Py_CLEAR(o->starts);
}

/* A new bytes object of `size` bytes (uninitialised), and where its bytes are. */
static PyObject *new_bytes(Py_ssize_t size, char **where)
{
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, size);
    if (bytes != NULL)
        *where = PyBytes_AS_STRING(bytes);
    return bytes;
}

static int allocate_outputs(Py_ssize_t size, const Layout *layout, Outputs *o, Columns *out)
{
    /* a row's line holds `fields` non-blank bytes, the blanks between them and (but the last) an LF */
    Py_ssize_t max_rows = size / (2 * layout->fields) + 1;
    Py_ssize_t width = layout->wide ? 8 : 4;
    for (int k = 0; k < layout->n_kept; k++) {
        o->data[k] = new_bytes(size + ID_SLACK, &out->data[k]);
        o->offsets[k] = new_bytes((max_rows + 1) * width, &out->offsets[k]);
        if (o->data[k] == NULL || o->offsets[k] == NULL)
            return -1;
        put_offset(out->offsets[k], 0, 0, layout->wide);
    }
    o->values = new_bytes(max_rows * 8, &out->values);
    o->starts = new_bytes(max_rows * 8, (char **)&out->starts);
    return o->values != NULL && o->starts != NULL ? 0 : -1;
}

/* Cuts each output to its written size. */
static int trim_outputs(const Layout *layout, const Columns *out, Outputs *o)
{
    Py_ssize_t width = layout->wide ? 8 : 4;
    for (int k = 0; k < layout->n_kept; k++)
        if (_PyBytes_Resize(&o->data[k], out->used[k]) < 0
            || _PyBytes_Resize(&o->offsets[k], ((k == 0 && layout->heads ? out->n_starts : out->rows) + 1) * width) < 0)
            return -1;
    return _PyBytes_Resize(&o->values, out->rows * 8) < 0 || _PyBytes_Resize(&o->starts, out->n_starts * 8) < 0
        ? -1 : 0;
}

/* The result tuple (Py_BuildValue's "y#" of a NULL pointer is None). */
static PyObject *build_result(const unsigned char *b, const Layout *layout, const Columns *out, const Outputs *o)
{
    PyObject *ids = PyTuple_New(layout->n_kept);
    for (int k = 0; ids != NULL && k < layout->n_kept; k++) {
        PyObject *id = Py_BuildValue("OOn", o->offsets[k], o->data[k], out->longest[k]);
        if (id == NULL)
            Py_CLEAR(ids);
        else
            PyTuple_SET_ITEM(ids, k, id);
    }
    const char *tag = out->tag_start >= 0 ? (const char *)b + out->tag_start : NULL;
    const char *skipped = out->n_skipped ? (const char *)out->skipped : NULL;
    PyObject *result = ids == NULL ? NULL : Py_BuildValue("nnNOOy#y#", out->rows, out->lines, ids, o->values,
                                                          o->starts, tag, out->tag_length, skipped,
                                                          out->n_skipped * 8);
    return result;
}

/* Reads the layout arguments; returns -1 with a ValueError if they do not describe a format. */
static int check_layout(Layout *layout, int kept_mask)
{
    layout->n_kept = 0;
    for (int j = 0; j < MAX_FORMAT_FIELDS; j++)
        if (kept_mask & (1 << j)) {
            if (layout->n_kept == MAX_KEPT || j >= layout->fields)
                goto bad;
            layout->kept[layout->n_kept++] = j;
        }
    if (layout->fields < 1 || layout->fields > MAX_FORMAT_FIELDS - 1 || !(kept_mask & 1)
        || kept_mask >> MAX_FORMAT_FIELDS || layout->value < 0 || layout->value >= layout->fields
        || layout->tag >= layout->fields
        || layout->comments < COMMENTS_NONE || layout->comments > COMMENTS_FIRST_BYTE)
        goto bad;
    for (int k = layout->n_kept; k < MAX_KEPT; k++)
        layout->kept[k] = 0;
    const Layout *known[] = {&RUN_ROWS, &QRELS_ROWS, &RUN_HEADS, &QRELS_HEADS};
    layout->rows = layout;
    for (int i = 0; i < 4; i++)
        if (same_rows(layout, known[i]))
            layout->rows = known[i];
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "tokenize: the layout does not describe a TREC format");
    return -1;
}

/* Runs the scan over view[start:end] without the GIL; builds the result or None. */
static PyObject *tokenize_view(const Py_buffer *view, Py_ssize_t start, Py_ssize_t end, const Layout *layout)
{
    Py_ssize_t size = end - start;
    const unsigned char *b = (const unsigned char *)view->buf + start;
    Columns out = {.tag_start = -1};
    Outputs o = {.values = NULL};
    PyObject *result = NULL;
    int status = SCAN_NO_MEMORY;
    if (allocate_outputs(size, layout, &o, &out) == 0) {
        Py_BEGIN_ALLOW_THREADS
        status = scan_block(b, size, layout, &out);
        Py_END_ALLOW_THREADS
        if (status == SCAN_NO_MEMORY)
            PyErr_NoMemory();
    }
    if (status == SCAN_DECLINE)
        result = Py_NewRef(Py_None);
    else if (status == SCAN_OK && trim_outputs(layout, &out, &o) == 0)
        result = build_result(b, layout, &out, &o);
    free(out.skipped);
    release_outputs(&o);
    return result;
}

PyDoc_STRVAR(tokenize_doc,
"tokenize(data, start, end, fields, exact, kept_mask, value, integer, tag, comments, blank_error,\n"
"         lone_cr_error, wide, heads=False)\n"
"--\n\n"
"The rows of data[start:end] (whole lines) per the TREC grammar, or None where any line is\n"
"not read with certainty as cranfield.io.trec_grammar.parse_lines reads it.\n\n"
"Returns (rows, lines, ids, values, starts, tag, skipped): ids holds (offsets, data, longest)\n"
"per kept field (int32 offsets, int64 if wide; longest: its longest id in bytes; with heads, the\n"
"query id's holds one id per start, that of the run of equal ids starting there); values\n"
"float64 (int64 if integer) bytes; starts int64 bytes (first row of each query); tag the\n"
"first row's tag bytes or None; skipped int64 bytes of the 0-based lines without a row, or None.");

static PyObject *tokenize(PyObject *module, PyObject *args)
{
    PyObject *data;
    Py_ssize_t start, end;
    int kept_mask;
    Layout layout;
    layout.heads = 0;
    if (!PyArg_ParseTuple(args, "Onniiiiiiiiii|p:tokenize", &data, &start, &end, &layout.fields, &layout.exact,
                          &kept_mask, &layout.value, &layout.integer, &layout.tag, &layout.comments,
                          &layout.blank_error, &layout.lone_cr_error, &layout.wide, &layout.heads)
        || check_layout(&layout, kept_mask) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *result = NULL;
    if (start < 0 || end < start || end > view.len)
        PyErr_SetString(PyExc_ValueError, "tokenize: start and end must satisfy 0 <= start <= end <= len(data)");
    else if (!layout.wide && end - start > INT32_MAX)
        PyErr_SetString(PyExc_ValueError, "tokenize: a block over 2 GiB needs wide offsets");
    else
        result = tokenize_view(&view, start, end, &layout);
    PyBuffer_Release(&view);
    return result;
}

PyDoc_STRVAR(use_classifier_doc,
"_use_classifier(name=None)\n"
"--\n\n"
"For tests: the names of the byte classifiers this CPU runs (the one in use first), after\n"
"switching to `name` (\"avx2\", \"sse2\", \"c\") where given. Not thread-safe.");

static PyObject *use_classifier(PyObject *module, PyObject *args)
{
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "|z:_use_classifier", &name))
        return NULL;
    for (int i = 0; name != NULL && i <= N_CLASSIFIERS; i++) {
        if (i == N_CLASSIFIERS) {
            PyErr_Format(PyExc_ValueError, "_use_classifier: no classifier %s on this CPU", name);
            return NULL;
        }
        if (strcmp(CLASSIFIERS[i].name, name) == 0 && classifier_runs(i)) {
            classifier = i;
            break;
        }
    }
    PyObject *names = PyList_New(0);
    for (int i = -1; names != NULL && i < N_CLASSIFIERS; i++) {
        if (i == classifier || (i >= 0 && !classifier_runs(i)))
            continue;
        PyObject *text = PyUnicode_FromString(CLASSIFIERS[i < 0 ? classifier : i].name);
        if (text == NULL || PyList_Append(names, text) < 0)
            Py_CLEAR(names);
        Py_XDECREF(text);
    }
    return names;
}

static PyMethodDef methods[] = {
    {"tokenize", tokenize, METH_VARARGS, tokenize_doc},
    {"_use_classifier", use_classifier, METH_VARARGS, use_classifier_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "cranfield._native.trec_tokenizer",
    .m_doc = "The TREC run/qrels tokenizer in C (see cranfield.io.trec_fast).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit_trec_tokenizer(void)
{
    init_byte_classes();
    choose_classifier();
    return PyModule_Create(&module);
}
