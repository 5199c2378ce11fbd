/* The field boundaries of the TREC tokenizer (trec_tokenizer.c), found 64 bytes at a time.
 *
 * classify_region() marks, for each 64-byte chunk of a region of the block, which bytes are
 * blanks of the grammar (space, TAB, LF, VT, FF, CR), which are LF, CR, >= 0x80, and which are
 * "rare" (CR, >= 0x80, or a control byte that is no blank: NUL and the like), with SSE2, or AVX2
 * where the CPU has it (machines without SSE2 split every line byte by byte: masks built in plain
 * C were slower than that). split_line_fast() then splits a line from those bit masks alone,
 * exactly as the byte-wise split_line() of trec_tokenizer.c does, or returns 0 and leaves the
 * line to it: a line of 64 bytes or more, a control byte, a lone CR where that is an error. So
 * the byte-wise split stays the one definition of a line's fields. */
#ifndef CRANFIELD_TREC_CHUNKS_H
#define CRANFIELD_TREC_CHUNKS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "trec_numbers.h" /* ALWAYS_INLINE */

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_VARIANT 1
#else
#define HAVE_AVX2_VARIANT 0
#endif

#define MAX_FIELDS 32       /* fields recorded per line: all of a line under 64 bytes (a format has 4 or 6) */
#define REGION_CHUNKS 256   /* chunks classified at a time (16 KiB: the masks stay in the L1 cache) */

/* The fields of one line, as positions in the block. */
typedef struct {
    Py_ssize_t start[MAX_FIELDS];
    Py_ssize_t length[MAX_FIELDS];
    Py_ssize_t count;     /* all fields of the line, also those past MAX_FIELDS */
    int high;             /* the line holds a byte >= 0x80 (its ids are checked as UTF-8) */
} Line;

/* Bit i describes byte i of a 64-byte chunk. */
typedef struct {
    uint64_t sep;  /* a blank: space, TAB, LF, VT, FF, CR */
    uint64_t lf;
    uint64_t rare; /* CR, >= 0x80, or below 0x20 and no blank (NUL, other control bytes) */
    uint64_t cr;
    uint64_t high; /* >= 0x80 */
} ChunkMasks;

/* ------------------------------------------------------------------------------ classification */

#if defined(__SSE2__)
/* The masks of the 64 bytes at p, 16 at a time. */
static void classify_chunk_sse2(const unsigned char *p, ChunkMasks *m)
{
    uint64_t sep = 0, lf = 0, rare = 0, cr = 0, high = 0;
    for (int i = 0; i < 64; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(p + i));
        __m128i t = _mm_sub_epi8(v, _mm_set1_epi8('\t'));  /* TAB..CR: t in 0..4 */
        __m128i blank = _mm_or_si128(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(4)), t),
                                     _mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
        __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(' ')), v);
        __m128i is_cr = _mm_cmpeq_epi8(v, _mm_set1_epi8('\r'));
        __m128i odd = _mm_or_si128(_mm_or_si128(_mm_andnot_si128(blank, low), is_cr), v); /* sign bit */
        sep |= (uint64_t)(unsigned)_mm_movemask_epi8(blank) << i;
        lf |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))) << i;
        rare |= (uint64_t)(unsigned)_mm_movemask_epi8(odd) << i;
        cr |= (uint64_t)(unsigned)_mm_movemask_epi8(is_cr) << i;
        high |= (uint64_t)(unsigned)_mm_movemask_epi8(v) << i;
    }
    *m = (ChunkMasks){sep, lf, rare, cr, high};
}
#endif

#if HAVE_AVX2_VARIANT
/* The masks of the 64 bytes at p, 32 at a time (only called where the CPU has AVX2). */
__attribute__((target("avx2"))) static void classify_chunk_avx2(const unsigned char *p, ChunkMasks *m)
{
    uint64_t sep = 0, lf = 0, rare = 0, cr = 0, high = 0;
    for (int i = 0; i < 64; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(p + i));
        __m256i t = _mm256_sub_epi8(v, _mm256_set1_epi8('\t'));
        __m256i blank = _mm256_or_si256(_mm256_cmpeq_epi8(_mm256_min_epu8(t, _mm256_set1_epi8(4)), t),
                                        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')));
        __m256i low = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(' ')), v);
        __m256i is_cr = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r'));
        __m256i odd = _mm256_or_si256(_mm256_or_si256(_mm256_andnot_si256(blank, low), is_cr), v);
        sep |= (uint64_t)(uint32_t)_mm256_movemask_epi8(blank) << i;
        lf |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))) << i;
        rare |= (uint64_t)(uint32_t)_mm256_movemask_epi8(odd) << i;
        cr |= (uint64_t)(uint32_t)_mm256_movemask_epi8(is_cr) << i;
        high |= (uint64_t)(uint32_t)_mm256_movemask_epi8(v) << i;
    }
    *m = (ChunkMasks){sep, lf, rare, cr, high};
}
#endif

typedef void (*ClassifyChunk)(const unsigned char *p, ChunkMasks *m);

/* The classifiers this build holds, by name ("avx2" only where the CPU has it). */
static const struct {
    const char *name;
    ClassifyChunk classify;
} CLASSIFIERS[] = {
#if HAVE_AVX2_VARIANT
    {"avx2", classify_chunk_avx2},
#endif
#if defined(__SSE2__)
    {"sse2", classify_chunk_sse2},
#endif
    {"c", NULL}, /* no masks: every line split byte by byte (machines without SSE2) */
};

#define N_CLASSIFIERS ((int)(sizeof CLASSIFIERS / sizeof CLASSIFIERS[0]))

/* The classifier in use: the first of CLASSIFIERS this CPU runs (chosen when the module loads). */
static int classifier = N_CLASSIFIERS - 1;

static int classifier_runs(int i)
{
#if HAVE_AVX2_VARIANT
    if (CLASSIFIERS[i].classify == classify_chunk_avx2) {
        __builtin_cpu_init(); /* the scan that goes with it is compiled for x86-64-v3's instructions too */
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2")
               && __builtin_cpu_supports("popcnt");
    }
#endif
    return i >= 0 && i < N_CLASSIFIERS;
}

static void choose_classifier(void)
{
    for (classifier = 0; !classifier_runs(classifier); classifier++)
        ;
}

/* The masks of the chunks of b[base:size] from `base` on, `chunks` of them (at least one): the
 * bytes past the block's end read as LF, so its last line ends there, with or without an LF. */
static ALWAYS_INLINE void classify_region(const unsigned char *b, Py_ssize_t size, Py_ssize_t base,
                                          Py_ssize_t chunks, ChunkMasks *m, ClassifyChunk classify)
{
    Py_ssize_t c = 0;
    for (; c < chunks && base + 64 * (c + 1) <= size; c++)
        classify(b + base + 64 * c, &m[c]);
    if (c < chunks && base + 64 * c < size) { /* the last, partial chunk */
        unsigned char tail[64];
        memset(tail, '\n', sizeof tail);
        memcpy(tail, b + base + 64 * c, (size_t)(size - base - 64 * c));
        classify(tail, &m[c++]);
    }
    for (; c < chunks; c++) /* past the end */
        m[c] = (ChunkMasks){~UINT64_C(0), ~UINT64_C(0), 0, 0, 0};
}

/* ------------------------------------------------------------------------------ lines */

/* The 64 bits from bit o of the 128 bits hi:lo. */
static ALWAYS_INLINE uint64_t bits_at(uint64_t lo, uint64_t hi, unsigned o)
{
    return (lo >> o) | (hi << 1 << (63 - o));
}

#define BITS_AT(masks, field, o) bits_at((masks)[0].field, (masks)[1].field, o)

/* Records field `count` of the line at `pos`: the lowest set bits of starts and ends. */
static ALWAYS_INLINE void record_field(Line *line, Py_ssize_t count, Py_ssize_t pos, uint64_t starts, uint64_t ends)
{
    unsigned first = (unsigned)LOWEST_BIT(starts), last = (unsigned)LOWEST_BIT(ends);
    line->start[count] = pos + first;
    line->length[count] = last - first + 1;
}

/* Splits the line at `pos` into fields as split_line() does, from the masks `m` of the region that
 * starts at `base` (pos - base < 64 * REGION_CHUNKS; the masks reach 64 bytes past it). Returns
 * the position after its LF (or the end of the block), or 0 where the line is left to split_line():
 * no LF within 64 bytes, a control byte, or a lone CR where that is an error. `want`: the format's
 * number of fields (a constant where the caller is compiled for one format), or 0. */
static ALWAYS_INLINE Py_ssize_t split_line_fast(const ChunkMasks *m, Py_ssize_t base, Py_ssize_t pos,
                                                Py_ssize_t size, int lone_cr_error, Line *line, int want)
{
    Py_ssize_t at = pos - base;
    const ChunkMasks *here = m + (at >> 6);
    unsigned o = (unsigned)at & 63;
    uint64_t lf = BITS_AT(here, lf, o);
    if (lf == 0)
        return 0;
    int length = LOWEST_BIT(lf);
    uint64_t in_line = (UINT64_C(1) << length) - 1;
    uint64_t rare = BITS_AT(here, rare, o) & in_line, high = 0;
    if (rare) {
        uint64_t cr = BITS_AT(here, cr, o) & in_line;
        high = BITS_AT(here, high, o) & in_line;
        if (rare & ~cr & ~high)
            return 0; /* NUL or another control byte */
        if (cr && lone_cr_error && (cr != UINT64_C(1) << (length - 1) || pos + length >= size))
            return 0; /* a CR not directly followed by LF */
    }
    uint64_t field = ~BITS_AT(here, sep, o) & in_line;
    uint64_t starts = field & ~(field << 1), ends = field & ~(field >> 1);
    Py_ssize_t count = 0;
    for (; count < want && starts; count++, starts &= starts - 1, ends &= ends - 1) /* unrolled: `want` is a constant */
        record_field(line, count, pos, starts, ends);
    for (; starts; count++, starts &= starts - 1, ends &= ends - 1) /* the others: at most 32 fields in 63 bytes */
        record_field(line, count, pos, starts, ends);
    line->count = count;
    line->high = high != 0;
    Py_ssize_t next = pos + length + 1;
    return next < size ? next : size;
}

#endif
