/* The values and ids of the TREC tokenizer (trec_tokenizer.c): UTF-8 as Python and Arrow check
 * it, int64 relevance, and float64 scores correctly rounded (Clinger's fast path for the usual
 * spellings, strtod for the rest). Each returns -1 where the grammar's reader must decide. */
#ifndef CRANFIELD_TREC_NUMBERS_H
#define CRANFIELD_TREC_NUMBERS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline)) /* also where the scan is compiled for x86-64-v3 */
#define LOWEST_BIT(x) __builtin_ctzll(x) /* the index of the lowest set bit of x (x != 0) */
#else
#define ALWAYS_INLINE inline
#define LOWEST_BIT(x) lowest_bit(x)
static int lowest_bit(uint64_t x)
{
    int i = 0;
    for (; !(x & 1); x >>= 1)
        i++;
    return i;
}
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LITTLE_ENDIAN_WORDS 1 /* load8() puts p[0] in the lowest byte: the word tricks below hold */
#else
#define LITTLE_ENDIAN_WORDS 0
#endif

/* The 8 bytes at p as one word. */
static ALWAYS_INLINE uint64_t load8(const unsigned char *p)
{
    uint64_t word;
    memcpy(&word, p, 8);
    return word;
}

/* ------------------------------------------------------------------------------ UTF-8 */

/* Whether s[0:n] is well-formed UTF-8 exactly as Python's strict decoder and Arrow's validator
 * define it (no overlong forms, no surrogates, nothing above U+10FFFF). */
static int utf8_valid(const unsigned char *s, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0x80) { /* ASCII */
            i++;
            continue;
        }
        int more;                      /* continuation bytes after the lead byte */
        unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
        if (c >= 0xC2 && c <= 0xDF)
            more = 1;
        else if (c == 0xE0)
            more = 2, lo = 0xA0;       /* no overlong 3-byte forms */
        else if (c == 0xED)
            more = 2, hi = 0x9F;       /* no surrogates */
        else if (c >= 0xE1 && c <= 0xEF)
            more = 2;
        else if (c == 0xF0)
            more = 3, lo = 0x90;       /* no overlong 4-byte forms */
        else if (c >= 0xF1 && c <= 0xF3)
            more = 3;
        else if (c == 0xF4)
            more = 3, hi = 0x8F;       /* nothing above U+10FFFF */
        else
            return 0;
        if (n - i <= more || s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (int k = 2; k <= more; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        i += more + 1;
    }
    return 1;
}

/* ------------------------------------------------------------------------------ numbers */

/* int64 relevance: an optional sign and decimal digits, within the signed 64-bit range. */
static ALWAYS_INLINE int parse_relevance(const unsigned char *s, Py_ssize_t n, int64_t *out)
{
    Py_ssize_t i = 0;
    int negative = 0;
    if (s[0] == '-' || s[0] == '+')
        negative = s[i++] == '-';
    if (i == n)
        return -1;
    if (n - i <= 18) { /* at most 18 digits: within the range, no check needed */
        int64_t v = 0;
        for (; i < n; i++) {
            unsigned d = (unsigned)s[i] - '0';
            if (d > 9)
                return -1;
            v = v * 10 + d;
        }
        *out = negative ? -v : v;
        return 0;
    }
    uint64_t limit = negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t w = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)s[i] - '0';
        if (d > 9 || w > (limit - d) / 10)
            return -1; /* not a digit, or beyond the int64 range */
        w = w * 10 + d;
    }
    *out = (negative && w) ? -(int64_t)(w - 1) - 1 : (int64_t)w;
    return 0;
}

/* The decimal syntax of a score, read: at most 19 significant digits in `mantissa` (the rest
 * noted in `truncated`), the power of ten that scales it, and whether the syntax holds. */
typedef struct {
    int negative, plus;
    uint64_t mantissa;
    int truncated;     /* nonzero digits beyond the 19 kept */
    int64_t exponent;  /* value = mantissa * 10^exponent (before truncation) */
    int huge_exponent; /* the written exponent was too long to add up: leave it to strtod */
} Decimal;

/* Adds the digits at s[*i..] to the mantissa; `fraction`: they follow the decimal point.
 * Returns how many digits were read. */
static Py_ssize_t read_digits(const unsigned char *s, Py_ssize_t n, Py_ssize_t *i, int fraction, Decimal *d,
                              int *significant)
{
    Py_ssize_t start = *i;
    for (; *i < n; (*i)++) {
        unsigned digit = (unsigned)s[*i] - '0';
        if (digit > 9)
            break;
        if (*significant < 19) { /* leading zeros leave the mantissa 0 and count for nothing */
            d->mantissa = d->mantissa * 10 + digit;
            *significant += d->mantissa != 0;
            d->exponent -= fraction;
        } else {
            d->truncated |= digit != 0;
            d->exponent += !fraction;
        }
    }
    return *i - start;
}

/* Reads s[0:n] as [+-]digits[.digits][(e|E)[+-]digits] (at least one mantissa digit). */
static int read_decimal(const unsigned char *s, Py_ssize_t n, Decimal *d)
{
    Py_ssize_t i = 0;
    int significant = 0;
    memset(d, 0, sizeof *d);
    if (s[0] == '-' || s[0] == '+') {
        d->negative = s[0] == '-';
        d->plus = s[0] == '+';
        i++;
    }
    Py_ssize_t digits = read_digits(s, n, &i, 0, d, &significant);
    if (i < n && s[i] == '.') {
        i++;
        digits += read_digits(s, n, &i, 1, d, &significant);
    }
    if (digits == 0)
        return -1;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        int negative = 0;
        int64_t e = 0;
        if (++i < n && (s[i] == '-' || s[i] == '+'))
            negative = s[i++] == '-';
        if (i == n)
            return -1;
        for (; i < n && (unsigned)s[i] - '0' <= 9; i++) {
            if (e < 100000000)
                e = e * 10 + (s[i] - '0');
            else
                d->huge_exponent = 1;
        }
        d->exponent += negative ? -e : e;
    }
    return i == n ? 0 : -1;
}

/* Clinger's fast path needs each double operation rounded once, to double (not to x87's
 * extended precision first); elsewhere every score goes through strtod */
#define CLINGER_EXACT (FLT_EVAL_METHOD == 0)

/* exact powers of ten as doubles (10^22 is the largest exact one) */
static const double POWERS_OF_TEN[] = {
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/* The correctly rounded double of the token s[0:n] whose syntax `d` holds, through strtod on a
 * NUL-terminated copy (glibc's strtod rounds correctly). The token was checked above, so a
 * locale whose decimal point is not '.' shows as an unconsumed token: declined. */
static int strtod_exact(const unsigned char *s, Py_ssize_t n, double *out)
{
    char small[64];
    char *copy = n < (Py_ssize_t)sizeof small ? small : malloc((size_t)n + 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, s, (size_t)n);
    copy[n] = '\0';
    char *stop;
    *out = strtod(copy, &stop);
    int consumed = stop == copy + n;
    if (copy != small)
        free(copy);
    return consumed ? 0 : -1;
}

/* float64 score: a finite decimal number, correctly rounded. Declined (-1) besides syntax
 * errors: overflow (the grammar's error), and a leading '+' or an underflow (a nonzero number
 * read as 0 or a subnormal): Arrow versions may differ on those, so the reference decides. */
static int parse_score_general(const unsigned char *s, Py_ssize_t n, double *out)
{
    Decimal d;
    if (read_decimal(s, n, &d) < 0 || d.plus)
        return -1;
    double v;
    if (d.mantissa == 0) {
        v = 0.0;
    } else if (CLINGER_EXACT && !d.truncated && !d.huge_exponent && d.mantissa <= (UINT64_C(1) << 53)
               && d.exponent >= -22 && d.exponent <= 22) {
        /* Clinger's fast path: both operands exact, so one IEEE operation rounds correctly */
        v = (double)d.mantissa;
        v = d.exponent < 0 ? v / POWERS_OF_TEN[-d.exponent] : v * POWERS_OF_TEN[d.exponent];
    } else {
        if (strtod_exact(s, n, &v) < 0)
            return -1;
        v = fabs(v);
        if (isinf(v) || v < DBL_MIN)
            return -1; /* overflow (an error), or underflow to zero or a subnormal */
    }
    *out = d.negative ? -v : v;
    return 0;
}

/* A score spelled [-]digits[.digits] with 1 to 19 digits and a value within
 * 2^53 units of its last place: one exact division by a power of ten (Clinger's fast path),
 * the same double as parse_score_general's. Any other spelling goes that general way. */
static inline int parse_score_digits(const unsigned char *s, Py_ssize_t n, double *out)
{
    Py_ssize_t i = s[0] == '-', first = i;
    uint64_t mantissa = 0;
    for (; i < n && (unsigned)s[i] - '0' <= 9; i++)
        mantissa = mantissa * 10 + (s[i] - '0');
    Py_ssize_t digits = i - first, fraction = 0;
    if (i < n && s[i] == '.') {
        Py_ssize_t point = i++;
        for (; i < n && (unsigned)s[i] - '0' <= 9; i++)
            mantissa = mantissa * 10 + (s[i] - '0');
        fraction = i - point - 1;
        digits += fraction;
    }
    if (!CLINGER_EXACT || i != n || digits < 1 || digits > 19 || mantissa > (UINT64_C(1) << 53))
        return parse_score_general(s, n, out);
    double v = (double)mantissa / POWERS_OF_TEN[fraction]; /* fraction <= 19: an exact power */
    *out = s[0] == '-' ? -v : v;
    return 0;
}

/* ---------------------------------------------------------------- scores, eight digits at a time */


/* The value of the `count` (1 to 8) digits that end at end[-1], read from the word of the 8 bytes
 * before `end` (the bytes before the digits count as '0'); -1 if one of them is no digit. */
static ALWAYS_INLINE int64_t digits_before(const unsigned char *end, int count)
{
    uint64_t word = load8(end - 8);
    uint64_t pad = ~UINT64_C(0) >> 1 >> (8 * count - 1); /* the 8 - count bytes before */
    word = (word & ~pad) | (UINT64_C(0x3030303030303030) & pad);
    if (((word & UINT64_C(0xF0F0F0F0F0F0F0F0))
         | (((word + UINT64_C(0x0606060606060606)) & UINT64_C(0xF0F0F0F0F0F0F0F0)) >> 4))
        != UINT64_C(0x3333333333333333))
        return -1; /* a byte outside '0'..'9' */
    word = (word & UINT64_C(0x0F0F0F0F0F0F0F0F)) * 2561 >> 8; /* pairs of digits, then fours, then eight */
    word = (word & UINT64_C(0x00FF00FF00FF00FF)) * 6553601 >> 16;
    return (int64_t)(uint32_t)((word & UINT64_C(0x0000FFFF0000FFFF)) * UINT64_C(42949672960001) >> 32);
}

/* powers of ten as integers, up to 10^8 */
static const int64_t TENS[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

/* The usual spelling of a score, [-]digits.digits with at most 7 digits before the point and 1
 * to 8 after (read as one word of the 8 bytes that end the token: they must lie within the block,
 * from `lo` on): its double by Clinger's fast path (at most 15 digits: exact in a double), as
 * parse_score_general gives it. Returns -1 for any other spelling. */
static ALWAYS_INLINE int parse_score_swar(const unsigned char *s, Py_ssize_t n, const unsigned char *lo, double *out)
{
    Py_ssize_t i = s[0] == '-', limit = i + 7;
    int64_t whole = 0;
    for (; i < n && i < limit && (unsigned)s[i] - '0' <= 9; i++)
        whole = whole * 10 + (s[i] - '0');
    Py_ssize_t after = n - i - 1;
    if (!LITTLE_ENDIAN_WORDS || !CLINGER_EXACT || i == n || s[i] != '.' || after < 1 || after > 8 || s + n - 8 < lo)
        return -1;
    int64_t part = digits_before(s + n, (int)after);
    if (part < 0)
        return -1;
    double v = (double)(whole * TENS[after] + part) / POWERS_OF_TEN[after];
    *out = s[0] == '-' ? -v : v;
    return 0;
}

/* A score: the usual spellings eight digits at a time, the rest digit by digit (parse_score_digits,
 * parse_score_general). lo: the block's start (the words read around the token lie after it). */
static ALWAYS_INLINE int parse_score(const unsigned char *s, Py_ssize_t n, const unsigned char *lo, double *out)
{
    if (parse_score_swar(s, n, lo, out) == 0)
        return 0;
    return parse_score_digits(s, n, out);
}

#endif
