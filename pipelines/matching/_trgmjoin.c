/*
 * _trgmjoin: the trigram similarity join of pipelines.matching.similarity_join, in C.
 *
 * build(names: list[str], thresholds: list[float]) -> index (a capsule)
 *     Indexes the register names (the small side). Trigrams are ranked by how many
 *     register names hold them, rarest first (ties by the trigram), and each register
 *     name A is posted under the first |A| - ceil(t_A * |A|) + 1 of its ranks (its prefix),
 *     in segments by (rank, threshold class, size).
 *
 * probe(index, data, offsets, offset_width, start, count) -> (bytes, bytes, bytes)
 *     Joins `count` entity names, given as an Arrow string array's buffers (`data`, and
 *     `offsets` of 4- or 8-byte integers, from element `start`), to the index. Returns
 *     three packed arrays: the register name's index (int32), the entity name's row in the
 *     batch (int32) and the similarity (float64) of every pair whose similarity reaches
 *     the register name's threshold less 1e-6 (the caller applies the exact comparison).
 *     Runs without the GIL: callers probe batches from several threads.
 *
 * trigram_keys(name: str) -> list[int]
 *     The keys of a name's distinct trigrams (for tests).
 *
 * Trigrams are pg_trgm's: words are runs of characters other than ASCII spaces and
 * punctuation (names reaching here are normalised: letters, digits and single spaces),
 * ASCII letters are lower-cased, each word is padded with two spaces in front and one
 * behind, and every window of three characters is a trigram. A trigram's key packs its
 * three code points (21 bits each): exact, no hashing.
 *
 * Why it is exact (prefix filtering; Chaudhuri et al. 2006, Bayardo et al. 2007): if
 * similarity(A, B) >= t then A and B share at least a = ceil(t * max(|A|, |B|)) trigrams,
 * and under any one total order of trigrams the first |A| - a + 1 of A and the first
 * |B| - a + 1 of B have one in common. A's prefix is cut at its own threshold and B's at
 * the lowest threshold of the index, so both are at least that long. Trigrams that no
 * register name holds come first in B's order (rank 0): they fill B's prefix and find
 * nothing. A register name met first at its position i and B's j-th trigram can share at
 * most 1 + min(|A| - i - 1, |B| - j - 1) trigrams (PPJoin's positional filter, Xiao et al.
 * 2008); it is dropped when that, or its size (|B| between t|A| and |A|/t), rules the pair
 * out. Then a signature: each name sets bit (rank & 63) of a 64-bit word for each of its
 * trigrams; a bit A sets and B does not stands for at least one trigram of A that B lacks, so
 * |A & B| <= |A| - popcount(sig_A & ~sig_B), and A is dropped when that is below what the
 * threshold needs (on generated names: 251 candidates a name → 10, the join 1.85 times as
 * fast). The rest are verified by counting the shared trigrams after position i, stopping
 * when the remainder cannot reach the threshold.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define SLACK 1e-6 /* thresholds are compared after rounding to 6 decimals downstream */

/* ---- growable arrays ---------------------------------------------------------------- */

typedef struct {
    void *p;
    size_t n, cap, size;
} Vec;

static int vec_reserve(Vec *v, size_t n) {
    if (n <= v->cap) return 0;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < n) cap *= 2;
    void *p = realloc(v->p, cap * v->size);
    if (!p) return -1;
    v->p = p;
    v->cap = cap;
    return 0;
}

/* ---- trigram keys ------------------------------------------------------------------- */

static inline int is_separator(uint32_t c) {
    /* ASCII characters other than letters and digits separate words */
    return c < 128 && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
}

/* Decode one UTF-8 character at s (s < end); returns its length (1 for a bad byte). */
static inline int utf8_next(const unsigned char *s, const unsigned char *end, uint32_t *cp) {
    unsigned char c = s[0];
    if (c < 0x80) { *cp = c; return 1; }
    int len = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
    if (len == 1 || s + len > end) { *cp = c; return 1; }
    uint32_t v = c & (0x3F >> (len - 1));
    for (int i = 1; i < len; i++) v = (v << 6) | (s[i] & 0x3F);
    *cp = v & 0x1FFFFF;
    return len;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void sort_u64(uint64_t *a, size_t n) {
    if (n > 32) { qsort(a, n, sizeof *a, cmp_u64); return; }
    for (size_t i = 1; i < n; i++) {
        uint64_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
}

static void sort_u32(uint32_t *a, size_t n) {
    if (n > 32) { qsort(a, n, sizeof *a, cmp_u32); return; }
    for (size_t i = 1; i < n; i++) {
        uint32_t x = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1] > x) { a[j] = a[j - 1]; j--; }
        a[j] = x;
    }
}

/* The distinct trigram keys of s[0:n], sorted, into keys (grown as needed); their count,
 * or -1 when out of memory. */
static Py_ssize_t name_keys(const unsigned char *s, Py_ssize_t n, Vec *keys) {
    keys->n = 0;
    if (vec_reserve(keys, (size_t)n * 2 + 8) < 0) return -1; /* at most chars + 2 per word */
    uint64_t *k = keys->p;
    size_t m = 0;
    const unsigned char *p = s, *end = s + n;
    uint32_t c0 = ' ', c1 = ' ';
    int in_word = 0;
    while (p < end) {
        uint32_t c;
        p += utf8_next(p, end, &c);
        if (is_separator(c)) {
            if (in_word) { k[m++] = ((uint64_t)c0 << 42) | ((uint64_t)c1 << 21) | ' '; in_word = 0; }
            continue;
        }
        if (c >= 'A' && c <= 'Z') c += 32;
        if (!in_word) { c0 = ' '; c1 = ' '; in_word = 1; }
        k[m++] = ((uint64_t)c0 << 42) | ((uint64_t)c1 << 21) | c;
        c0 = c1;
        c1 = c;
    }
    if (in_word) k[m++] = ((uint64_t)c0 << 42) | ((uint64_t)c1 << 21) | ' ';
    sort_u64(k, m);
    size_t u = 0;
    for (size_t i = 0; i < m; i++)
        if (u == 0 || k[u - 1] != k[i]) k[u++] = k[i];
    keys->n = u;
    return (Py_ssize_t)u;
}

/* ---- the index ---------------------------------------------------------------------- */

/* One posting: a register name, where the rank sits in its order, its size, and what its
 * threshold t asks, so that the probe's filters read nothing else. */
typedef struct {
    uint32_t reg;
    uint32_t start;  /* where its ranks start in Index.ranks */
    uint16_t pos;
    uint16_t size;
    float threshold; /* t (less SLACK), rounded down */
    float share;     /* t / (1 + t), rounded down: the overlap needed is share * (|A| + |B|) */
} Post;

#define MAX_CLASSES 16

typedef struct {
    /* trigram key -> rank (1..n_ranks), open addressing */
    uint64_t *slot_keys;
    uint32_t *slot_ranks;
    size_t mask;
    size_t n_ranks;
    /* register names: their sorted ranks (CSR), sizes and thresholds */
    Py_ssize_t n_names;
    uint32_t *name_start; /* n_names + 1 */
    uint32_t *ranks;
    uint64_t *sig;        /* per register name: bit (rank & 63) set for each of its ranks */
    double *threshold;    /* less SLACK */
    double min_threshold; /* less SLACK */
    /* threshold classes: each register name's threshold falls in one; a class's threshold
     * is the lowest of its members' (so bounds drawn from it hold for all of them) */
    int n_classes;
    double class_threshold[MAX_CLASSES];
    double class_share[MAX_CLASSES];
    /* postings, ordered by (rank, class, size): segment (r, c) is
     * posts[seg[r * n_classes + c] : seg[r * n_classes + c + 1]] */
    uint32_t *seg;
    Post *posts;
} Index;

static inline uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

static inline uint32_t rank_of(const Index *ix, uint64_t key) {
    size_t i = mix(key) & ix->mask;
    for (;;) {
        uint32_t r = ix->slot_ranks[i];
        if (r == 0) return 0;
        if (ix->slot_keys[i] == key) return r;
        i = (i + 1) & ix->mask;
    }
}

static void index_free(Index *ix) {
    if (!ix) return;
    free(ix->slot_keys);
    free(ix->slot_ranks);
    free(ix->name_start);
    free(ix->ranks);
    free(ix->sig);
    free(ix->threshold);
    free(ix->seg);
    free(ix->posts);
    free(ix);
}

static void capsule_free(PyObject *capsule) {
    index_free(PyCapsule_GetPointer(capsule, "bvs.trgmjoin.index"));
}

/* How many of a set's first trigrams are looked up: |A| - ceil(t|A|) + 1, within 1..|A|. */
static inline size_t prefix_length(size_t n, double t) {
    double need = ceil(t * (double)n - 1e-9);
    if (need < 1) need = 1;
    if (need > (double)n) need = (double)n;
    return n - (size_t)need + 1;
}

typedef struct {
    uint64_t key;
    uint32_t count;
} KeyCount;

static int cmp_keycount(const void *a, const void *b) {
    const KeyCount *x = a, *y = b;
    if (x->count != y->count) return (x->count > y->count) - (x->count < y->count);
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_post_size(const void *a, const void *b) {
    const Post *x = a, *y = b;
    if (x->size != y->size) return (x->size > y->size) - (x->size < y->size);
    return (x->reg > y->reg) - (x->reg < y->reg);
}

/* Threshold classes: the distinct thresholds, or up to MAX_CLASSES groups of them. */
static int make_classes(Index *ix, uint8_t *class_of) {
    Py_ssize_t n = ix->n_names;
    double *d = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!d) return -1;
    memcpy(d, ix->threshold, (size_t)n * sizeof(double));
    qsort(d, (size_t)n, sizeof(double), cmp_double);
    size_t distinct = 0;
    for (Py_ssize_t i = 0; i < n; i++)
        if (distinct == 0 || d[distinct - 1] != d[i]) d[distinct++] = d[i];
    size_t groups = distinct < MAX_CLASSES ? distinct : MAX_CLASSES;
    if (groups == 0) groups = 1;
    ix->n_classes = (int)groups;
    /* group g holds distinct values [g * distinct / groups, (g + 1) * distinct / groups) */
    for (size_t g = 0; g < groups; g++) {
        double t = distinct ? d[g * distinct / groups] : 1.0;
        ix->class_threshold[g] = t;
        ix->class_share[g] = nextafter(t / (1.0 + t), 0.0);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        size_t lo = 0, hi = distinct; /* position of the threshold among the distinct ones */
        while (lo + 1 < hi) {
            size_t mid = (lo + hi) / 2;
            if (d[mid] <= ix->threshold[i]) lo = mid; else hi = mid;
        }
        size_t g = 0;
        while (g + 1 < groups && (g + 1) * distinct / groups <= lo) g++;
        class_of[i] = (uint8_t)g;
    }
    free(d);
    return 0;
}

static PyObject *build(PyObject *self, PyObject *args) {
    PyObject *names, *thresholds;
    if (!PyArg_ParseTuple(args, "OO", &names, &thresholds)) return NULL;
    PyObject *nseq = PySequence_Fast(names, "names must be a sequence");
    if (!nseq) return NULL;
    PyObject *tseq = PySequence_Fast(thresholds, "thresholds must be a sequence");
    if (!tseq) { Py_DECREF(nseq); return NULL; }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(nseq);
    Index *ix = NULL;
    Vec all = {NULL, 0, 0, sizeof(uint64_t)}, keys = {NULL, 0, 0, sizeof(uint64_t)};
    KeyCount *kc = NULL;
    uint8_t *class_of = NULL;
    uint32_t *fill = NULL;
    if (PySequence_Fast_GET_SIZE(tseq) != n || n >= UINT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "names and thresholds must have the same length");
        goto fail;
    }
    ix = calloc(1, sizeof *ix);
    if (!ix) goto nomem;
    ix->n_names = n;
    ix->name_start = malloc((size_t)(n + 1) * sizeof(uint32_t));
    ix->threshold = malloc((size_t)(n ? n : 1) * sizeof(double));
    class_of = malloc((size_t)(n ? n : 1));
    if (!ix->name_start || !ix->threshold || !class_of) goto nomem;
    ix->min_threshold = 1.0;
    /* 1. every register name's distinct keys, one after another */
    ix->name_start[0] = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(PySequence_Fast_GET_ITEM(nseq, i), &len);
        if (!s) goto fail;
        double t = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(tseq, i));
        if (t == -1.0 && PyErr_Occurred()) goto fail;
        if (!(t > 0.0 && t <= 1.0)) {
            PyErr_Format(PyExc_ValueError, "threshold %R of name %zd is not in (0, 1]",
                         PySequence_Fast_GET_ITEM(tseq, i), i);
            goto fail;
        }
        ix->threshold[i] = t - SLACK;
        if (t - SLACK < ix->min_threshold) ix->min_threshold = t - SLACK;
        Py_ssize_t m = name_keys((const unsigned char *)s, len, &keys);
        if (m < 0 || vec_reserve(&all, all.n + (size_t)m) < 0) goto nomem;
        if (m > 65535) {
            PyErr_Format(PyExc_ValueError, "name %zd has more than 65,535 trigrams", i);
            goto fail;
        }
        memcpy((uint64_t *)all.p + all.n, keys.p, (size_t)m * sizeof(uint64_t));
        all.n += (size_t)m;
        if (all.n >= UINT32_MAX) { PyErr_SetString(PyExc_ValueError, "too many trigrams"); goto fail; }
        ix->name_start[i + 1] = (uint32_t)all.n;
    }
    if (make_classes(ix, class_of) < 0) goto nomem;
    /* 2. how many names hold each key; ranks by (count, key) */
    {
        uint64_t *sorted = malloc((all.n ? all.n : 1) * sizeof(uint64_t));
        kc = malloc((all.n ? all.n : 1) * sizeof(KeyCount));
        if (!sorted || !kc) { free(sorted); goto nomem; }
        memcpy(sorted, all.p, all.n * sizeof(uint64_t));
        qsort(sorted, all.n, sizeof(uint64_t), cmp_u64);
        size_t distinct = 0;
        for (size_t i = 0; i < all.n; i++) {
            if (distinct && kc[distinct - 1].key == sorted[i]) kc[distinct - 1].count++;
            else { kc[distinct].key = sorted[i]; kc[distinct].count = 1; distinct++; }
        }
        free(sorted);
        qsort(kc, distinct, sizeof(KeyCount), cmp_keycount);
        ix->n_ranks = distinct;
    }
    size_t slots = 16;
    while (slots < ix->n_ranks * 2) slots *= 2;
    ix->mask = slots - 1;
    ix->slot_keys = malloc(slots * sizeof(uint64_t));
    ix->slot_ranks = calloc(slots, sizeof(uint32_t));
    if (!ix->slot_keys || !ix->slot_ranks) goto nomem;
    for (size_t r = 0; r < ix->n_ranks; r++) {
        size_t i = mix(kc[r].key) & ix->mask;
        while (ix->slot_ranks[i]) i = (i + 1) & ix->mask;
        ix->slot_keys[i] = kc[r].key;
        ix->slot_ranks[i] = (uint32_t)(r + 1);
    }
    /* 3. each name's ranks, sorted; its prefix posted under (rank, class), by size */
    size_t n_seg = (ix->n_ranks + 1) * (size_t)ix->n_classes;
    ix->ranks = malloc((all.n ? all.n : 1) * sizeof(uint32_t));
    ix->sig = calloc((size_t)(n ? n : 1), sizeof(uint64_t));
    if (!ix->sig) goto nomem;
    ix->seg = calloc(n_seg + 1, sizeof(uint32_t));
    if (!ix->ranks || !ix->seg) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t a = ix->name_start[i], b = ix->name_start[i + 1];
        for (uint32_t j = a; j < b; j++) ix->ranks[j] = rank_of(ix, ((uint64_t *)all.p)[j]);
        sort_u32(ix->ranks + a, b - a);
        for (uint32_t j = a; j < b; j++) ix->sig[i] |= 1ULL << (ix->ranks[j] & 63);
        if (b == a) continue;
        size_t p = prefix_length(b - a, ix->threshold[i]);
        for (size_t j = 0; j < p; j++)
            ix->seg[(size_t)ix->ranks[a + j] * ix->n_classes + class_of[i] + 1]++;
    }
    for (size_t k = 1; k <= n_seg; k++) ix->seg[k] += ix->seg[k - 1];
    ix->posts = malloc(((size_t)ix->seg[n_seg] + 1) * sizeof(Post));
    fill = malloc((n_seg + 1) * sizeof(uint32_t));
    if (!ix->posts || !fill) goto nomem;
    memcpy(fill, ix->seg, (n_seg + 1) * sizeof(uint32_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t a = ix->name_start[i], b = ix->name_start[i + 1];
        if (b == a) continue;
        double t = ix->threshold[i];
        size_t p = prefix_length(b - a, t);
        for (size_t j = 0; j < p; j++) {
            Post *post = &ix->posts[fill[(size_t)ix->ranks[a + j] * ix->n_classes + class_of[i]]++];
            post->reg = (uint32_t)i;
            post->start = a;
            post->pos = (uint16_t)j;
            post->size = (uint16_t)(b - a);
            post->threshold = nextafterf((float)t, 0.0f);
            post->share = nextafterf((float)(t / (1.0 + t)), 0.0f);
        }
    }
    for (size_t k = 0; k < n_seg; k++)
        if (ix->seg[k + 1] - ix->seg[k] > 1)
            qsort(ix->posts + ix->seg[k], ix->seg[k + 1] - ix->seg[k], sizeof(Post), cmp_post_size);
    free(fill);
    free(all.p);
    free(keys.p);
    free(kc);
    free(class_of);
    Py_DECREF(nseq);
    Py_DECREF(tseq);
    PyObject *capsule = PyCapsule_New(ix, "bvs.trgmjoin.index", capsule_free);
    if (!capsule) index_free(ix);
    return capsule;
nomem:
    PyErr_NoMemory();
fail:
    free(fill);
    free(all.p);
    free(keys.p);
    free(kc);
    free(class_of);
    index_free(ix);
    Py_DECREF(nseq);
    Py_DECREF(tseq);
    return NULL;
}

/* ---- probing ------------------------------------------------------------------------ */

typedef struct {
    Vec reg, row, sim; /* int32, int32, double */
} Out;

static int emit(Out *o, uint32_t reg, uint32_t row, double sim) {
    if (vec_reserve(&o->reg, o->reg.n + 1) < 0 || vec_reserve(&o->row, o->row.n + 1) < 0 ||
        vec_reserve(&o->sim, o->sim.n + 1) < 0)
        return -1;
    ((int32_t *)o->reg.p)[o->reg.n++] = (int32_t)reg;
    ((int32_t *)o->row.p)[o->row.n++] = (int32_t)row;
    ((double *)o->sim.p)[o->sim.n++] = sim;
    return 0;
}

/* ceil(x) for x >= 0 without a call into libm (the hot loops' own) */
static inline size_t ceil_size(double x) {
    if (x <= 0) return 0;
    size_t i = (size_t)x;
    return i + ((double)i < x);
}

/* A candidate: a register name met for the first time at its position `pos`. */
typedef const Post *Cand;

/* Probe rows [0, count): returns 0, -1 when out of memory, or -2 for a name of more than
 * 65,535 trigrams (its row in *bad_row). */
static int probe_rows(const Index *ix, const unsigned char *data, const void *offsets, int wide,
                      Py_ssize_t start, Py_ssize_t count, Out *out, Py_ssize_t *bad_row) {
    Vec keys = {NULL, 0, 0, sizeof(uint64_t)}, present = {NULL, 0, 0, sizeof(uint32_t)};
    size_t n_regs = (size_t)(ix->n_names ? ix->n_names : 1);
    uint16_t *seen = calloc(n_regs, sizeof(uint16_t));           /* marks */
    uint16_t *in_b = calloc(ix->n_ranks + 1, sizeof(uint16_t));  /* B's ranks, as marks */
    Cand *cand = malloc(n_regs * sizeof(Cand));
    uint16_t mark = 0;
#ifdef TRGM_STATS
    size_t scanned = 0, cands = 0, steps = 0, passed = 0, segs = 0;
#define STAT(x) (x)
#else
#define STAT(x) ((void)0)
#endif
    int rc = -1;
    if (!seen || !cand || !in_b) goto done;
    for (Py_ssize_t row = 0; row < count; row++) {
        int64_t a, b;
        if (wide) {
            a = ((const int64_t *)offsets)[start + row];
            b = ((const int64_t *)offsets)[start + row + 1];
        } else {
            a = ((const int32_t *)offsets)[start + row];
            b = ((const int32_t *)offsets)[start + row + 1];
        }
        Py_ssize_t nb = name_keys(data + a, (Py_ssize_t)(b - a), &keys);
        if (nb < 0) goto done;
        if (nb == 0) continue;
        if (nb > 65535) { *bad_row = row; rc = -2; goto done; }
        if (vec_reserve(&present, (size_t)nb) < 0) goto done;
        uint32_t *pr = present.p;
        size_t m = 0;
        for (Py_ssize_t j = 0; j < nb; j++) {
            uint32_t r = rank_of(ix, ((uint64_t *)keys.p)[j]);
            if (r) pr[m++] = r;
        }
        if (m == 0) continue;
        sort_u32(pr, m);
        size_t absent = (size_t)nb - m;
        size_t p = prefix_length((size_t)nb, ix->min_threshold);
        if (p <= absent) continue;
        size_t probe = p - absent < m ? p - absent : m;
        /* marks run 1..65535, then the arrays are cleared and they start again */
        if (++mark == 0) {
            memset(seen, 0, n_regs * sizeof(uint16_t));
            memset(in_b, 0, (ix->n_ranks + 1) * sizeof(uint16_t));
            mark = 1;
        }
        uint64_t sig_b = 0;
        for (size_t j = 0; j < m; j++) {
            in_b[pr[j]] = mark;
            sig_b |= 1ULL << (pr[j] & 63);
        }
        double dnb = (double)nb;
        /* 1. Candidates: register names met in B's prefix for the first time (PPJoin).
         * A met first at its position pos and B's present trigram jj share no trigram
         * before those, so at most 1 + min(|A| - pos - 1, m - jj - 1) (m: B's trigrams that
         * some register name holds). A is dropped when that is below the overlap its
         * threshold needs, share * (|A| + |B|), or when the sizes rule the pair out; it is
         * not met again. Within a (trigram, class) segment, ordered by size, only the sizes
         * that both bounds allow for the class's threshold are read: a name outside them
         * is outside them at every later trigram of B too. */
        size_t n_cand = 0;
        for (size_t jj = 0; jj < probe; jj++) {
            uint32_t r = pr[jj];
            double rest_b = (double)(m - jj); /* this trigram and B's later ones */
            for (int c = 0; c < ix->n_classes; c++) {
                double t = ix->class_threshold[c], share = ix->class_share[c];
                size_t lo = ceil_size(t * dnb - 1e-9);
                double hi_d = dnb / t + 1e-9, hi_pos = rest_b / share - dnb + 1e-9;
                if (hi_pos < hi_d) hi_d = hi_pos;
                if (hi_d < 1) continue;
                size_t hi = (size_t)hi_d; /* floor */
                if (hi < lo) continue;
                /* read from the segment's start: a binary search costs more cache misses
                 * than the short runs of too-small names it skips */
                size_t k = (size_t)r * ix->n_classes + c;
                STAT(segs++);
                for (const Post *post = ix->posts + ix->seg[k], *end = ix->posts + ix->seg[k + 1];
                     post < end && post->size <= hi; post++) {
                    STAT(scanned++);
                    if (post->size < lo || seen[post->reg] == mark) continue;
                    seen[post->reg] = mark;
                    double na = post->size, ta = post->threshold;
                    if (dnb < ta * na - 1e-6 || dnb * ta > na + 1e-6) continue;
                    double need = (double)post->share * (na + dnb) - 1e-6;
                    double rest_a = (double)(post->size - post->pos);
                    if (rest_a < need || rest_b < need) continue;
                    /* each bit A sets and B does not stands for at least one trigram of A
                     * that B lacks: |A & B| <= |A| - popcount(sig_A & ~sig_B) */
                    if (na - (double)__builtin_popcountll(ix->sig[post->reg] & ~sig_b) < need) continue;
                    STAT(cands++);
                    __builtin_prefetch(ix->ranks + post->start + post->pos + 1);
                    cand[n_cand++] = post;
                }
            }
        }
        /* 2. Verification: the overlap is 1 + the shared trigrams after A's position pos,
         * counted until the rest cannot reach what the threshold needs. */
        for (size_t c = 0; c < n_cand; c++) {
            const Post *post = cand[c];
            uint32_t reg = post->reg;
            size_t na = post->size;
            double t = post->threshold;
            size_t need = ceil_size((double)post->share * (double)(na + (size_t)nb) - 1e-6);
            size_t o = 1;
            const uint32_t *x0 = ix->ranks + post->start + post->pos + 1, *x = x0;
            const uint32_t *xe = ix->ranks + post->start + na;
            for (; x < xe; x++) {
                if (o + (size_t)(xe - x) < need) break;
                o += in_b[*x] == mark;
            }
            STAT(steps += (size_t)(x - x0));
            if (o < need) continue;
            STAT(passed++);
            double sim = (double)o / ((double)na + dnb - (double)o);
            if (sim >= t && emit(out, reg, (uint32_t)row, sim) < 0) goto done;
        }
    }
    rc = 0;
#ifdef TRGM_STATS
    fprintf(stderr, "rows %zd scanned %.1f cands %.1f steps %.1f passed %.1f segs %.1f\n", count,
            (double)scanned / count, (double)cands / count, (double)steps / count,
            (double)passed / count, (double)segs / count);
#endif
done:
    free(seen);
    free(in_b);
    free(cand);
    free(keys.p);
    free(present.p);
    return rc;
}

static PyObject *take_bytes(Vec *v) {
    PyObject *b = PyBytes_FromStringAndSize(v->p ? v->p : "", (Py_ssize_t)(v->n * v->size));
    free(v->p);
    v->p = NULL;
    return b;
}

static PyObject *probe(PyObject *self, PyObject *args) {
    PyObject *capsule;
    Py_buffer data, offsets;
    int width;
    Py_ssize_t start, count;
    if (!PyArg_ParseTuple(args, "Oy*y*inn", &capsule, &data, &offsets, &width, &start, &count))
        return NULL;
    PyObject *result = NULL;
    Out out = {{NULL, 0, 0, sizeof(int32_t)}, {NULL, 0, 0, sizeof(int32_t)}, {NULL, 0, 0, sizeof(double)}};
    const Index *ix = PyCapsule_GetPointer(capsule, "bvs.trgmjoin.index");
    if (!ix) goto end;
    if ((width != 4 && width != 8) || start < 0 || count < 0 || count >= INT32_MAX ||
        (start + count + 1) * (Py_ssize_t)width > offsets.len) {
        PyErr_SetString(PyExc_ValueError, "offsets do not cover the rows asked for");
        goto end;
    }
    /* every offset must lie inside data */
    for (Py_ssize_t i = start; i <= start + count; i++) {
        int64_t o = width == 8 ? ((const int64_t *)offsets.buf)[i] : ((const int32_t *)offsets.buf)[i];
        if (o < 0 || o > data.len) {
            PyErr_SetString(PyExc_ValueError, "an offset points outside the data");
            goto end;
        }
    }
    int rc;
    Py_ssize_t bad_row = -1;
    Py_BEGIN_ALLOW_THREADS
    rc = probe_rows(ix, data.buf, offsets.buf, width == 8, start, count, &out, &bad_row);
    Py_END_ALLOW_THREADS
    if (rc == -2) {
        PyErr_Format(PyExc_ValueError, "the name at row %zd has more than 65,535 trigrams", bad_row);
        goto end;
    }
    if (rc < 0) { PyErr_NoMemory(); goto end; }
    PyObject *reg = take_bytes(&out.reg), *row = take_bytes(&out.row), *sim = take_bytes(&out.sim);
    if (reg && row && sim) result = PyTuple_Pack(3, reg, row, sim);
    Py_XDECREF(reg);
    Py_XDECREF(row);
    Py_XDECREF(sim);
end:
    free(out.reg.p);
    free(out.row.p);
    free(out.sim.p);
    PyBuffer_Release(&data);
    PyBuffer_Release(&offsets);
    return result;
}

static PyObject *trigram_keys(PyObject *self, PyObject *arg) {
    Py_ssize_t len;
    const char *s = PyUnicode_AsUTF8AndSize(arg, &len);
    if (!s) return NULL;
    Vec keys = {NULL, 0, 0, sizeof(uint64_t)};
    Py_ssize_t m = name_keys((const unsigned char *)s, len, &keys);
    if (m < 0) { free(keys.p); return PyErr_NoMemory(); }
    PyObject *list = PyList_New(m);
    for (Py_ssize_t i = 0; list && i < m; i++) {
        PyObject *k = PyLong_FromUnsignedLongLong(((uint64_t *)keys.p)[i]);
        if (!k) { Py_CLEAR(list); break; }
        PyList_SET_ITEM(list, i, k);
    }
    free(keys.p);
    return list;
}

static PyMethodDef methods[] = {
    {"build", build, METH_VARARGS, "Index register names: build(names, thresholds) -> index."},
    {"probe", probe, METH_VARARGS,
     "Join entity names to an index: probe(index, data, offsets, offset_width, start, count)."},
    {"trigram_keys", trigram_keys, METH_O, "The sorted keys of a name's distinct trigrams."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_trgmjoin", NULL, -1, methods};

PyMODINIT_FUNC PyInit__trgmjoin(void) { return PyModule_Create(&module); }
