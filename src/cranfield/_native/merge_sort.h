/* A stable merge sort (insertion sort below 24 items) of the rows of one query, for dict_run.c:
 * DEFINE_SORT(name, BEFORE) defines `static void name(item *a, item *tmp, Py_ssize_t n, void *ctx)`
 * ordering a[0..n) by BEFORE(x, y, ctx) (x goes first); `tmp` holds n items. */
#ifndef CRANFIELD_MERGE_SORT_H
#define CRANFIELD_MERGE_SORT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    double score;
    uint32_t row; /* row within its query */
} item;

#define DEFINE_SORT(name, BEFORE)                                                               \
    static void name(item *a, item *tmp, Py_ssize_t n, void *ctx)                                \
    {                                                                                           \
        if (n < 24) {                                                                           \
            for (Py_ssize_t i = 1; i < n; i++) {                                                \
                item x = a[i];                                                                  \
                Py_ssize_t j = i;                                                               \
                while (j > 0 && BEFORE(&x, &a[j - 1], ctx)) {                                   \
                    a[j] = a[j - 1];                                                            \
                    j--;                                                                        \
                }                                                                               \
                a[j] = x;                                                                       \
            }                                                                                   \
            return;                                                                             \
        }                                                                                       \
        Py_ssize_t h = n / 2;                                                                   \
        name(a, tmp, h, ctx);                                                                   \
        name(a + h, tmp, n - h, ctx);                                                           \
        if (!BEFORE(&a[h], &a[h - 1], ctx))                                                     \
            return; /* already in order */                                                      \
        memcpy(tmp, a, (size_t)h * sizeof(item));                                               \
        Py_ssize_t i = 0, j = h, k = 0;                                                         \
        while (i < h && j < n)                                                                  \
            a[k++] = BEFORE(&a[j], &tmp[i], ctx) ? a[j++] : tmp[i++];                           \
        while (i < h)                                                                           \
            a[k++] = tmp[i++];                                                                  \
    }

#endif
