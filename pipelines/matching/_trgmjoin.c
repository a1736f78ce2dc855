/*
 * _trgmjoin: the trigram similarity join of pipelines.matching.similarity_join, in C.
 *
 * build(names: list[str], thresholds: list[float]) -> index (a capsule)
 *     Indexes the register names (the small side). Trigrams are ranked by how many
 *     register names hold them, rarest first (ties by the trigram), and each register
 *     name A is posted under the first |A| - ceil(t_A * |A|) + 1 of its ranks (its prefix).
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
 * nothing. Every candidate found is then checked by size (|B| between t|A| and |A|/t) and
 * by its exact overlap (a merge of the two sorted rank lists).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
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

/* One posting: a register name, where the rank sits in its order, its size and its
 * threshold, so that the probe's filters read nothing else. */
typedef struct {
    uint32_t reg;
    uint16_t pos;
    uint16_t size;
    uint16_t lo, hi; /* the sizes of B that can reach t: t|A| <= |B| <= |A|/t */
    float share;     /* t / (1 + t), rounded down: the overlap needed is share * (|A| + |B|) */
} Post;

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
    double *threshold;    /* less SLACK */
    double min_threshold; /* less SLACK */
    int hits;             /* a candidate needs this many prefix hits (or all it can have) */
    /* postings: rank -> register names with it in their prefix (CSR over ranks) */
    uint32_t *post_start; /* n_ranks + 2 */
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
    free(ix->threshold);
    free(ix->post_start);
    free(ix->posts);
    free(ix);
}

static void capsule_free(PyObject *capsule) {
    index_free(PyCapsule_GetPointer(capsule, "bvs.trgmjoin.index"));
}

/* The overlap similarity t needs with a set of n trigrams: ceil(t * n), at least 1. */
static inline size_t overlap_needed(size_t n, double t) {
    double need = ceil(t * (double)n - 1e-9);
    return need < 1 ? 1 : (size_t)need;
}

/* How many of a set's first trigrams are looked up so that `hits` of them are shared. */
static inline size_t prefix_length(size_t n, double t, int hits) {
    size_t need = overlap_needed(n, t);
    if (need > n) need = n;
    size_t p = n - need + (size_t)hits;
    return p > n ? n : p;
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

static PyObject *build(PyObject *self, PyObject *args) {
    PyObject *names, *thresholds;
    int hits;
    if (!PyArg_ParseTuple(args, "OOi", &names, &thresholds, &hits)) return NULL;
    if (hits < 1 || hits > 8) {
        PyErr_SetString(PyExc_ValueError, "hits must be between 1 and 8");
        return NULL;
    }
    PyObject *nseq = PySequence_Fast(names, "names must be a sequence");
    if (!nseq) return NULL;
    PyObject *tseq = PySequence_Fast(thresholds, "thresholds must be a sequence");
    if (!tseq) { Py_DECREF(nseq); return NULL; }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(nseq);
    if (PySequence_Fast_GET_SIZE(tseq) != n || n >= UINT32_MAX - 1) {
        PyErr_SetString(PyExc_ValueError, "names and thresholds must have the same length");
        goto fail_seq;
    }
    Index *ix = calloc(1, sizeof *ix);
    Vec all = {NULL, 0, 0, sizeof(uint64_t)}, keys = {NULL, 0, 0, sizeof(uint64_t)};
    KeyCount *kc = NULL;
    if (!ix) goto nomem;
    ix->n_names = n;
    ix->hits = hits;
    ix->name_start = malloc((size_t)(n + 1) * sizeof(uint32_t));
    ix->threshold = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!ix->name_start || !ix->threshold) goto nomem;
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
    /* 2. how many names hold each key; ranks by (count, key) */
    uint64_t *sorted = malloc((all.n ? all.n : 1) * sizeof(uint64_t));
    if (!sorted) goto nomem;
    memcpy(sorted, all.p, all.n * sizeof(uint64_t));
    qsort(sorted, all.n, sizeof(uint64_t), cmp_u64);
    size_t distinct = 0;
    kc = malloc((all.n ? all.n : 1) * sizeof(KeyCount));
    if (!kc) { free(sorted); goto nomem; }
    for (size_t i = 0; i < all.n; i++) {
        if (distinct && kc[distinct - 1].key == sorted[i]) kc[distinct - 1].count++;
        else { kc[distinct].key = sorted[i]; kc[distinct].count = 1; distinct++; }
    }
    free(sorted);
    qsort(kc, distinct, sizeof(KeyCount), cmp_keycount);
    ix->n_ranks = distinct;
    size_t slots = 16;
    while (slots < distinct * 2) slots *= 2;
    ix->mask = slots - 1;
    ix->slot_keys = malloc(slots * sizeof(uint64_t));
    ix->slot_ranks = calloc(slots, sizeof(uint32_t));
    if (!ix->slot_keys || !ix->slot_ranks) goto nomem;
    for (size_t r = 0; r < distinct; r++) {
        size_t i = mix(kc[r].key) & ix->mask;
        while (ix->slot_ranks[i]) i = (i + 1) & ix->mask;
        ix->slot_keys[i] = kc[r].key;
        ix->slot_ranks[i] = (uint32_t)(r + 1);
    }
    /* 3. each name's ranks, sorted; its prefix posted */
    ix->ranks = malloc((all.n ? all.n : 1) * sizeof(uint32_t));
    ix->post_start = calloc(distinct + 2, sizeof(uint32_t));
    if (!ix->ranks || !ix->post_start) goto nomem;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t a = ix->name_start[i], b = ix->name_start[i + 1];
        for (uint32_t j = a; j < b; j++) ix->ranks[j] = rank_of(ix, ((uint64_t *)all.p)[j]);
        sort_u32(ix->ranks + a, b - a);
        if (b > a) {
            size_t p = prefix_length(b - a, ix->threshold[i], hits);
            for (size_t j = 0; j < p; j++) ix->post_start[ix->ranks[a + j] + 1]++;
        }
    }
    for (size_t r = 1; r < distinct + 2; r++) ix->post_start[r] += ix->post_start[r - 1];
    ix->posts = malloc(((size_t)ix->post_start[distinct + 1] + 1) * sizeof(Post));
    uint32_t *fill = malloc((distinct + 2) * sizeof(uint32_t));
    if (!ix->posts || !fill) { free(fill); goto nomem; }
    memcpy(fill, ix->post_start, (distinct + 2) * sizeof(uint32_t));
    for (Py_ssize_t i = 0; i < n; i++) {
        uint32_t a = ix->name_start[i], b = ix->name_start[i + 1];
        if (b == a) continue;
        size_t p = prefix_length(b - a, ix->threshold[i], hits);
        for (size_t j = 0; j < p; j++) {
            Post *post = &ix->posts[fill[ix->ranks[a + j]]++];
            post->reg = (uint32_t)i;
            post->pos = (uint16_t)j;
            post->size = (uint16_t)(b - a);
            double t = ix->threshold[i], lo = ceil(t * (double)(b - a) - 1e-9),
                   hi = floor((double)(b - a) / t + 1e-9);
            post->lo = (uint16_t)(lo < 1 ? 1 : lo);
            post->hi = (uint16_t)(hi > 65535 ? 65535 : hi);
            post->share = nextafterf((float)(t / (1.0 + t)), 0.0f);
        }
    }
    free(fill);
    free(all.p);
    free(keys.p);
    free(kc);
    Py_DECREF(nseq);
    Py_DECREF(tseq);
    PyObject *capsule = PyCapsule_New(ix, "bvs.trgmjoin.index", capsule_free);
    if (!capsule) index_free(ix);
    return capsule;
nomem:
    PyErr_NoMemory();
fail:
    free(all.p);
    free(keys.p);
    free(kc);
    index_free(ix);
fail_seq:
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

/* A register name's state while one entity name is probed. */
typedef struct {
    uint16_t stamp; /* the row that last met it, as a mark (see probe_rows) */
    uint16_t hits;  /* prefix trigrams shared so far, or DEAD */
} State;

#define DEAD UINT16_MAX

/* The overlap similarity t needs between sets of na and nb trigrams: o / (na + nb - o) >= t
 * if and only if o >= t * (na + nb) / (1 + t). */
static inline size_t overlap_needed2(size_t na, size_t nb, double t) {
    double need = ceil(t * (double)(na + nb) / (1.0 + t) - 1e-9);
    return need < 1 ? 1 : (size_t)need;
}

/* Probe rows [0, count): returns 0, -1 when out of memory, or -2 for a name of more than
 * 65,535 trigrams (its row in *bad_row). */
static int probe_rows(const Index *ix, const unsigned char *data, const void *offsets, int wide,
                      Py_ssize_t start, Py_ssize_t count, Out *out, Py_ssize_t *bad_row) {
    Vec keys = {NULL, 0, 0, sizeof(uint64_t)}, present = {NULL, 0, 0, sizeof(uint32_t)};
    size_t n_regs = (size_t)(ix->n_names ? ix->n_names : 1);
    State *state = calloc(n_regs, sizeof(State));
    uint16_t *in_b = calloc(ix->n_ranks + 1, sizeof(uint16_t)); /* B's ranks, as marks */
    uint16_t mark = 0;
    uint32_t *cand = malloc(n_regs * sizeof(uint32_t));
    int rc = -1;
    if (!state || !cand || !in_b) goto done;
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
        if (nb < 0) { rc = -1; goto done; }
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
        size_t p = prefix_length((size_t)nb, ix->min_threshold, ix->hits);
        if (p <= absent) continue;
        size_t probe = p - absent < m ? p - absent : m;
        /* marks run 1..65535, then the states are cleared and they start again */
        if (++mark == 0) {
            memset(state, 0, n_regs * sizeof(State));
            memset(in_b, 0, (ix->n_ranks + 1) * sizeof(uint16_t));
            mark = 1;
        }
        for (size_t j = 0; j < m; j++) in_b[pr[j]] = mark;
        double dnb = (double)nb;
        /* 1. the prefix's postings: size and positional filters (PPJoin), hits counted.
         * At A's position pos and B's present trigram jj, with h earlier hits, A and B can
         * share at most h + 1 + min(|A| - pos - 1, m - jj - 1) trigrams (m: B's trigrams
         * that some register name holds); below the overlap their threshold needs, A is
         * dropped for this name. */
        size_t n_cand = 0;
        for (size_t jj = 0; jj < probe; jj++) {
            uint32_t r = pr[jj];
            size_t rest_b = m - jj - 1; /* present trigrams after this one */
            const Post *q = ix->posts + ix->post_start[r], *qe = ix->posts + ix->post_start[r + 1];
            for (; q < qe; q++) {
                State *st = &state[q->reg];
                uint32_t h = 0; /* hits fit: a name has at most 65,535 trigrams */
                if (st->stamp == mark) {
                    if (st->hits == DEAD) continue;
                    h = st->hits;
                } else {
                    st->stamp = mark;
                    st->hits = DEAD;
                    if ((size_t)nb < q->lo || (size_t)nb > q->hi) continue;
                    cand[n_cand++] = q->reg;
                }
                /* an integer is below ceil(x) exactly when it is below x */
                size_t rest_a = (size_t)q->size - q->pos - 1;
                double most = (double)(h + 1 + (rest_a < rest_b ? rest_a : rest_b));
                if (most < (double)q->share * (q->size + dnb) - 1e-6) { st->hits = DEAD; continue; }
                st->hits = h + 1;
            }
        }
        /* 2. candidates with enough hits: the exact overlap */
        for (size_t c = 0; c < n_cand; c++) {
            uint32_t reg = cand[c];
            uint32_t h = state[reg].hits;
            if (h == DEAD) continue;
            uint32_t ra = ix->name_start[reg], rb = ix->name_start[reg + 1];
            size_t na = rb - ra;
            double t = ix->threshold[reg];
            size_t need = overlap_needed2(na, (size_t)nb, t);
            if (h < (need < (size_t)ix->hits ? need : (size_t)ix->hits)) continue;
            size_t o = 0;
            for (const uint32_t *x = ix->ranks + ra, *xe = ix->ranks + rb; x < xe; x++)
                o += in_b[*x] == mark;
            if (o < need) continue;
            double sim = (double)o / ((double)na + dnb - (double)o);
            if (sim >= t && emit(out, reg, (uint32_t)row, sim) < 0) goto done;
        }
    }
    rc = 0;
done:
    free(state);
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
