/*
 * _abrscan: the ABR parser's canonical-record matcher in C.
 *
 * scan(data: bytes) -> list[tuple[bytes, ...]] returns exactly what
 * pipelines.ingest.abr._RECORDS_B.findall(data) returns: one 28-tuple per record, groups
 * 0..26 for a record in the publisher's canonical spelling (empty bytes for groups that did
 * not take part), or, for any other record, empty groups and its whole text in group 27.
 * The grammar is the regular expression's, read left to right; every choice in it is
 * decided by the next literal, so no backtracking is needed. The Python regex stays the
 * reference: tests compare the two on every fixture and on generated extracts.
 */
#define _GNU_SOURCE /* memmem */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define NGROUPS 28
#define G_RAW 27

/* An other name of a record's tail, as _OTHER finds it: an <OtherEntity>'s type and name, or
 * a <DGR>'s fund name and the text of its attributes. */
typedef struct {
    const char *kind, *name, *attrs; /* attrs: NULL for an <OtherEntity> */
    Py_ssize_t kind_len, name_len, attrs_len;
} Other;

typedef struct {
    Other *p;
    size_t n, cap;
    int oom;
} Others;

typedef struct {
    const char *p;   /* cursor */
    const char *end; /* end of the record span (just before "</ABR>") */
    const char *gs[NGROUPS];
    Py_ssize_t gl[NGROUPS];
    Others *others;  /* where tail() lists the record's other names (NULL: not wanted) */
} M;

static void other_add(Others *o, const char *kind, Py_ssize_t kind_len, const char *name,
                      Py_ssize_t name_len, const char *attrs, Py_ssize_t attrs_len) {
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        Other *q = realloc(o->p, cap * sizeof(Other));
        if (!q) { o->oom = 1; return; }
        o->p = q;
        o->cap = cap;
    }
    Other *e = &o->p[o->n++];
    e->kind = kind; e->kind_len = kind_len;
    e->name = name; e->name_len = name_len;
    e->attrs = attrs; e->attrs_len = attrs_len;
}

static inline int lit_n(M *m, const char *s, size_t n) {
    if ((size_t)(m->end - m->p) < n || memcmp(m->p, s, n) != 0) return 0;
    m->p += n;
    return 1;
}

/* string literals only: their length is known at compile time */
#define lit(m, s) lit_n((m), (s), sizeof(s) - 1)
#define peek(m, s) ((size_t)((m)->end - (m)->p) >= sizeof(s) - 1 && memcmp((m)->p, (s), sizeof(s) - 1) == 0)

/* [^<]* captured into group g (g < 0: not captured) */
static void text(M *m, int g) {
    const char *s = m->p;
    const char *q = memchr(s, '<', (size_t)(m->end - s));
    m->p = q ? q : m->end;
    if (g >= 0) { m->gs[g] = s; m->gl[g] = m->p - s; }
}

/* value of an attribute: [^"<>]* (or [^"<]* when allow_gt), then the closing quote */
static int attr_value(M *m, int g, int allow_gt) {
    const char *s = m->p;
    while (m->p < m->end && *m->p != '"' && *m->p != '<' && (allow_gt || *m->p != '>')) m->p++;
    if (m->p >= m->end || *m->p != '"') return 0;
    if (g >= 0) { m->gs[g] = s; m->gl[g] = m->p - s; }
    m->p++;
    return 1;
}

/* name="X" other="Y" in either order: groups g, g+1 (first order) or g+2, g+3 (second).
 * a_eq/b_eq are `name="`, sp_a_eq/sp_b_eq the same with a leading space. */
static int pair_n(M *m, const char *a_eq, size_t a_n, const char *b_eq, size_t b_n,
                  const char *sp_a_eq, size_t sp_a_n, const char *sp_b_eq, size_t sp_b_n, int g) {
    const char *start = m->p;
    if (lit_n(m, a_eq, a_n) && attr_value(m, g, 0) && lit_n(m, sp_b_eq, sp_b_n) &&
        attr_value(m, g + 1, 0))
        return 1;
    m->p = start;
    m->gl[g] = m->gl[g + 1] = 0;
    if (lit_n(m, b_eq, b_n) && attr_value(m, g + 2, 0) && lit_n(m, sp_a_eq, sp_a_n) &&
        attr_value(m, g + 3, 0))
        return 1;
    m->p = start;
    m->gl[g + 2] = m->gl[g + 3] = 0;
    return 0;
}

#define pair(m, a, b, g) \
    pair_n((m), a "=\"", sizeof(a "=\"") - 1, b "=\"", sizeof(b "=\"") - 1, \
           " " a "=\"", sizeof(" " a "=\"") - 1, " " b "=\"", sizeof(" " b "=\"") - 1, (g))

/* (?:<tag>([^<]*)</tag>|<tag ?/>) */
#define optional_text(m, tag, g) \
    (lit(m, "<" tag ">") ? (text(m, g), lit(m, "</" tag ">")) \
                         : (lit(m, "<" tag "/>") || lit(m, "<" tag " />")))

/* <NonIndividualName type="[^"<]*"><NonIndividualNameText>[^<]*</NonIndividualNameText></NonIndividualName> */
static int name_element_at(M *m, const char **type, Py_ssize_t *type_len, const char **name,
                           Py_ssize_t *name_len) {
    if (!lit(m, "<NonIndividualName type=\"")) return 0;
    *type = m->p;
    if (!attr_value(m, -1, 1)) return 0;
    *type_len = m->p - 1 - *type;
    if (!lit(m, "><NonIndividualNameText>")) return 0;
    *name = m->p;
    text(m, -1);
    *name_len = m->p - *name;
    return lit(m, "</NonIndividualNameText></NonIndividualName>");
}

static int name_element(M *m) {
    const char *t, *n;
    Py_ssize_t tl, nl;
    return name_element_at(m, &t, &tl, &n, &nl);
}

/* (?: [A-Za-z]+="[^"<>]*")* */
static void attributes(M *m) {
    for (;;) {
        const char *start = m->p;
        if (m->p < m->end && *m->p == ' ') {
            m->p++;
            const char *n = m->p;
            while (m->p < m->end && ((*m->p >= 'A' && *m->p <= 'Z') || (*m->p >= 'a' && *m->p <= 'z'))) m->p++;
            if (m->p > n && lit(m, "=\"") && attr_value(m, -1, 0)) continue;
        }
        m->p = start;
        return;
    }
}

/* <DGR attrs ?/> | <DGR attrs>(name)?</DGR> | <OtherEntity>name</OtherEntity>, repeated */
/* Where m->others is set, each element is listed as _OTHER's findall reads it: an
 * <OtherEntity> whose type is not empty; a <DGR> with attributes (a space after "<DGR")
 * and a fund name that is not empty, with the text between "<DGR " and "/>" or ">". */
static void tail(M *m) {
    const char *s = m->p;
    for (;;) {
        const char *start = m->p;
        if (lit(m, "<DGR")) {
            attributes(m);
            const char *after = m->p;
            if (lit(m, "/>") || (lit(m, " />"))) continue;
            m->p = after;
            if (lit(m, ">")) {
                const char *in = m->p, *type, *name;
                Py_ssize_t type_len, name_len = 0;
                if (!name_element_at(m, &type, &type_len, &name, &name_len)) {
                    m->p = in;
                    name_len = 0;
                }
                if (lit(m, "</DGR>")) {
                    if (m->others && name_len > 0 && start[4] == ' ')
                        other_add(m->others, "DGR", 3, name, name_len, start + 5, after - (start + 5));
                    continue;
                }
            }
        } else if (lit(m, "<OtherEntity>")) {
            const char *type, *name;
            Py_ssize_t type_len, name_len;
            if (name_element_at(m, &type, &type_len, &name, &name_len) && lit(m, "</OtherEntity>")) {
                if (m->others && type_len > 0)
                    other_add(m->others, type, type_len, name, name_len, NULL, 0);
                continue;
            }
        }
        m->p = start;
        break;
    }
    m->gs[26] = s;
    m->gl[26] = m->p - s;
}

static int canonical(M *m) {
    if (!lit(m, "<ABR ") || !pair(m, "recordLastUpdatedDate", "replaced", 0) || !lit(m, ">")) return 0;
    if (!lit(m, "<ABN ") || !pair(m, "status", "ABNStatusFromDate", 4) || !lit(m, ">")) return 0;
    text(m, 8);
    if (!lit(m, "</ABN><EntityType><EntityTypeInd>")) return 0;
    text(m, 9);
    if (!lit(m, "</EntityTypeInd><EntityTypeText>")) return 0;
    text(m, 10);
    if (!lit(m, "</EntityTypeText></EntityType>")) return 0;
    if (lit(m, "<MainEntity><NonIndividualName type=\"MN\"><NonIndividualNameText>")) {
        text(m, 11);
        if (!lit(m, "</NonIndividualNameText></NonIndividualName>")) return 0;
    } else if (peek(m, "<LegalEntity><IndividualName type=\"LGL\">")) {
        m->gs[12] = m->p; m->gl[12] = 1; /* the "(<)" group */
        lit(m, "<LegalEntity><IndividualName type=\"LGL\">");
        if (lit(m, "<NameTitle>")) { text(m, 13); if (!lit(m, "</NameTitle>")) return 0; }
        if (lit(m, "<GivenName>")) { text(m, 14); if (!lit(m, "</GivenName>")) return 0; }
        if (lit(m, "<GivenName>")) { text(m, 15); if (!lit(m, "</GivenName>")) return 0; }
        if (!lit(m, "<FamilyName>")) return 0;
        text(m, 16);
        if (!lit(m, "</FamilyName></IndividualName>")) return 0;
    } else {
        return 0;
    }
    if (!lit(m, "<BusinessAddress><AddressDetails>")) return 0;
    if (!optional_text(m, "State", 17) || !optional_text(m, "Postcode", 18)) return 0;
    if (!lit(m, "</AddressDetails></BusinessAddress></")) return 0;
    if (!lit(m, "MainEntity>") && !lit(m, "LegalEntity>")) return 0;
    {
        const char *start = m->p;
        if (lit(m, "<ASICNumber ASICNumberType=\"")) {
            const char *v = m->p;
            int ok = 0;
            if (attr_value(m, 19, 0) && lit(m, ">")) {
                text(m, 20);
                ok = lit(m, "</ASICNumber>");
            }
            if (!ok) {
                m->gl[19] = m->gl[20] = 0;
                m->p = v;
                ok = attr_value(m, 21, 0) && (lit(m, "/>") || lit(m, " />"));
                if (!ok) { m->gl[21] = 0; m->p = start; }
            }
        }
    }
    {
        const char *start = m->p;
        if (lit(m, "<GST ")) {
            if (!(pair(m, "status", "GSTStatusFromDate", 22) && (lit(m, "/>") || lit(m, " />")))) {
                m->gl[22] = m->gl[23] = m->gl[24] = m->gl[25] = 0;
                m->p = start;
            }
        }
    }
    tail(m);
    return m->p == m->end; /* then "</ABR>" follows */
}

static PyObject *empty_bytes;

static PyObject *groups_tuple(M *m) {
    PyObject *t = PyTuple_New(NGROUPS);
    if (!t) return NULL;
    for (int i = 0; i < NGROUPS; i++) {
        PyObject *v;
        if (m->gl[i] > 0) {
            v = PyBytes_FromStringAndSize(m->gs[i], m->gl[i]);
            if (!v) { Py_DECREF(t); return NULL; }
        } else {
            v = empty_bytes;
            Py_INCREF(v);
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

/* "<ABR" tags passed over by next_record: all of them (data.count(b"<ABR")), and those after
 * the first that start a line (data.count(b"\n<ABR", data.find(b"<ABR"))) */
typedef struct {
    Py_ssize_t abr, line;
} Tags;

static inline void count_tag(Tags *t, const char *s) {
    if (t && t->abr++ && s[-1] == '\n') t->line++;
}

/* The next record at or after p, as _RECORDS finds one: "<ABR" followed by whitespace, '>'
 * or '/', up to the first "</ABR>" after it (*close); NULL when there is none. Every "<ABR"
 * passed over, inside a record or not, is counted in tags (NULL: not counted). */
static const char *next_record(const char *p, const char *end, const char **close, Tags *tags) {
    while (p < end) {
        const char *s = memmem(p, (size_t)(end - p), "<ABR", 4);
        if (!s) return NULL;
        count_tag(tags, s);
        if (s + 4 >= end) return NULL;
        char c = s[4];
        if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '>' || c == '/')) {
            p = s + 1;
            continue;
        }
        const char *e = memmem(s + 5, (size_t)(end - (s + 5)), "</ABR>", 6);
        if (!e) { p = s + 1; continue; } /* like the regex: no match at this start */
        if (tags) /* "<ABR" inside the record (an odd record's text) */
            for (const char *q = s + 4; (q = memmem(q, (size_t)(e - q), "<ABR", 4)) != NULL; q += 4)
                count_tag(tags, q);
        *close = e;
        return s;
    }
    return NULL;
}

static PyObject *scan(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *data = view.buf;
    const char *end = data + view.len;
    PyObject *out = PyList_New(0);
    if (!out) { PyBuffer_Release(&view); return NULL; }
    const char *s, *close;
    for (const char *p = data; (s = next_record(p, end, &close, NULL)) != NULL; p = close + 6) {
        M m;
        memset(&m, 0, sizeof m);
        m.p = s;
        m.end = close;
        int ok = canonical(&m);
        if (!ok) {
            memset(&m, 0, sizeof m);
            m.gs[G_RAW] = s;
            m.gl[G_RAW] = (close + 6) - s;
        }
        PyObject *t = groups_tuple(&m);
        if (!t || PyList_Append(out, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(out);
            PyBuffer_Release(&view);
            return NULL;
        }
        Py_DECREF(t);
    }
    PyBuffer_Release(&view);
    return out;
}

/* ---- scan_columns: the same records, written as Arrow buffers ------------------------ */

/* what a group's values hold, over all records (bits of Col.flags) */
#define F_EDGE 1     /* a value starts or ends with a byte <= 0x20 or >= 0x80: may need a trim */
#define F_AMP 2      /* a value holds '&': may hold a character reference */
#define F_NONASCII 4 /* a byte >= 0x80: the values must be checked as UTF-8 */

typedef struct {
    char *data;
    size_t len, cap;
    int32_t *offsets; /* n + 1 */
    uint8_t *valid;   /* a bit per record: the group took part and is not empty */
    Py_ssize_t nulls;
    int flags;
} Col;

/* a growable Arrow binary column (values, int32 offsets, validity) */
typedef struct {
    char *data;
    size_t len, cap;
    int32_t *offsets;
    uint8_t *valid;
    size_t n, ncap;
    Py_ssize_t nulls;
} Str;

static int str_put(Str *c, const char *s, Py_ssize_t len, int valid) {
    if (len < 0) return -1; /* a span read backwards: a bug, not a value */
    if (c->n + 1 >= c->ncap) {
        size_t ncap = c->ncap ? c->ncap * 2 : 1024;
        int32_t *o = realloc(c->offsets, ncap * sizeof(int32_t));
        if (!o) return -1;
        c->offsets = o;
        uint8_t *v = realloc(c->valid, (ncap + 7) / 8);
        if (!v) return -1;
        memset(v + (c->ncap + 7) / 8, 0, (ncap + 7) / 8 - (c->ncap + 7) / 8);
        c->valid = v;
        if (c->ncap == 0) c->offsets[0] = 0;
        c->ncap = ncap;
    }
    if (c->len + (size_t)len > c->cap) {
        size_t cap = c->cap ? c->cap : 65536;
        while (cap < c->len + (size_t)len) cap *= 2;
        if (cap > (size_t)INT32_MAX) return -1;
        char *d = realloc(c->data, cap);
        if (!d) return -1;
        c->data = d;
        c->cap = cap;
    }
    if (len > 0) memcpy(c->data + c->len, s, (size_t)len);
    c->len += (size_t)len;
    if (valid) c->valid[c->n >> 3] |= (uint8_t)(1u << (c->n & 7));
    else c->nulls++;
    c->n++;
    c->offsets[c->n] = (int32_t)c->len;
    return 0;
}

static void str_free(Str *c) {
    free(c->data);
    free(c->offsets);
    free(c->valid);
}

/* (validity, offsets, values, null count) */
static PyObject *str_tuple(Str *c) {
    static const int32_t zero = 0;
    return Py_BuildValue("(y#y#y#n)", c->valid ? (const char *)c->valid : "",
                         (Py_ssize_t)((c->n + 7) / 8),
                         c->offsets ? (const char *)c->offsets : (const char *)&zero,
                         (Py_ssize_t)((c->n + 1) * sizeof(int32_t)), c->data ? c->data : "",
                         (Py_ssize_t)c->len, c->nulls);
}

typedef struct {
    Col col[NGROUPS - 1];
    Others found;            /* the current record's other names */
    int32_t *other_rec;      /* the record of each other name */
    size_t n_other, other_cap;
    Str other_kind, other_name, other_attrs;
    Py_ssize_t n, cap;       /* records, and room for them in offsets and valid */
    PyObject *odd;           /* [(index, raw bytes)] of records not in canonical spelling */
    Tags tags;               /* the chunk's "<ABR" tags, records or not */
} Cols;

static int cols_grow(Cols *c) {
    Py_ssize_t cap = c->cap ? c->cap * 2 : 4096;
    for (int g = 0; g < NGROUPS - 1; g++) {
        int32_t *o = realloc(c->col[g].offsets, (size_t)(cap + 1) * sizeof(int32_t));
        if (!o) return -1;
        c->col[g].offsets = o;
        uint8_t *v = realloc(c->col[g].valid, (size_t)(cap + 7) / 8);
        if (!v) return -1;
        memset(v + (c->cap + 7) / 8, 0, (size_t)((cap + 7) / 8 - (c->cap + 7) / 8));
        c->col[g].valid = v;
    }
    c->cap = cap;
    return 0;
}

static int col_put(Col *col, Py_ssize_t row, const char *s, Py_ssize_t len) {
    if (len < 0) return -1; /* a span read backwards: a bug, not a value */
    if (len > 0) {
        if (col->len + (size_t)len > col->cap) {
            size_t cap = col->cap ? col->cap : 65536;
            while (cap < col->len + (size_t)len) cap *= 2;
            if (cap > (size_t)INT32_MAX) return -1;
            char *d = realloc(col->data, cap);
            if (!d) return -1;
            col->data = d;
            col->cap = cap;
        }
        memcpy(col->data + col->len, s, (size_t)len);
        col->len += (size_t)len;
        col->valid[row >> 3] |= (uint8_t)(1u << (row & 7));
        unsigned char a = (unsigned char)s[0], b = (unsigned char)s[len - 1];
        if (a <= 0x20 || a >= 0x80 || b <= 0x20 || b >= 0x80) col->flags |= F_EDGE;
    } else {
        col->nulls++;
    }
    col->offsets[row + 1] = (int32_t)col->len;
    return 0;
}

static int has_high_byte(const char *s, size_t n) {
    size_t i = 0;
    uint64_t acc = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        acc |= w;
    }
    for (; i < n; i++) acc |= (unsigned char)s[i];
    return (acc & 0x8080808080808080ULL) != 0;
}

static int others_put(Cols *c, int32_t rec) {
    for (size_t i = 0; i < c->found.n; i++) {
        const Other *e = &c->found.p[i];
        if (c->n_other == c->other_cap) {
            size_t cap = c->other_cap ? c->other_cap * 2 : 1024;
            int32_t *r = realloc(c->other_rec, cap * sizeof(int32_t));
            if (!r) return -1;
            c->other_rec = r;
            c->other_cap = cap;
        }
        c->other_rec[c->n_other++] = rec;
        if (str_put(&c->other_kind, e->kind, e->kind_len, 1) < 0 ||
            str_put(&c->other_name, e->name, e->name_len, 1) < 0 ||
            str_put(&c->other_attrs, e->attrs, e->attrs_len, e->attrs != NULL) < 0)
            return -1;
    }
    return 0;
}

static void cols_free(Cols *c) {
    free(c->found.p);
    free(c->other_rec);
    str_free(&c->other_kind);
    str_free(&c->other_name);
    str_free(&c->other_attrs);
    for (int g = 0; g < NGROUPS - 1; g++) {
        free(c->col[g].data);
        free(c->col[g].offsets);
        free(c->col[g].valid);
    }
    Py_XDECREF(c->odd);
}

static PyObject *col_tuple(Col *col, Py_ssize_t n) {
    if (col->data && memchr(col->data, '&', col->len)) col->flags |= F_AMP;
    if (col->data && has_high_byte(col->data, col->len)) col->flags |= F_NONASCII;
    return Py_BuildValue("(y#y#y#nn)", (const char *)col->valid, (Py_ssize_t)((n + 7) / 8),
                         (const char *)col->offsets, (Py_ssize_t)((n + 1) * sizeof(int32_t)),
                         col->data ? col->data : "", (Py_ssize_t)col->len, col->nulls,
                         (Py_ssize_t)col->flags);
}

/* ---- dates ---------------------------------------------------------------------------- */

/* days from 1970-01-01 to y-m-d, proleptic Gregorian (H. Hinnant's days_from_civil) */
static int32_t days_from_civil(int y, int m, int d) {
    y -= m <= 2;
    int era = (y >= 0 ? y : y - 399) / 400;
    int yoe = y - era * 400;
    int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (int32_t)(era * 146097 + doe - 719468);
}

/* A YYYYMMDD value: 1 and its days when it is a real calendar day, else 0 (what the
 * parser's Arrow path accepts: eight ASCII digits, month 1-12, a day the month has). */
static int yyyymmdd(const char *s, Py_ssize_t n, int32_t *days) {
    if (n != 8) return 0;
    for (int i = 0; i < 8; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    int m = (s[4] - '0') * 10 + (s[5] - '0');
    int d = (s[6] - '0') * 10 + (s[7] - '0');
    static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1) return 0;
    int leap = (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    if (d > month_days[m - 1] + (m == 2 && leap)) return 0;
    *days = days_from_civil(y, m, d);
    return 1;
}

/* The date of groups (first, second) taken as `first if present else second`, for every
 * record: (days as int32, validity of the real days, a byte per record: 1 where a value is
 * present but not a real YYYYMMDD day). Exact where the two groups' flags are 0 (their
 * values are what cleaning leaves); the caller reads the strings otherwise. */
static PyObject *date_column(Cols *c, int first, int second) {
    Py_ssize_t n = c->n;
    PyObject *days = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(int32_t));
    PyObject *valid = PyBytes_FromStringAndSize(NULL, (n + 7) / 8);
    PyObject *bad = PyBytes_FromStringAndSize(NULL, n);
    if (!days || !valid || !bad) goto fail;
    int32_t *dd = (int32_t *)PyBytes_AS_STRING(days);
    uint8_t *vv = (uint8_t *)PyBytes_AS_STRING(valid);
    uint8_t *bb = (uint8_t *)PyBytes_AS_STRING(bad);
    memset(vv, 0, (size_t)(n + 7) / 8);
    Py_ssize_t nulls = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Col *col = &c->col[first];
        if (col->offsets[i + 1] == col->offsets[i]) col = &c->col[second];
        Py_ssize_t len = col->offsets[i + 1] - col->offsets[i];
        dd[i] = 0;
        bb[i] = 0;
        if (len > 0 && yyyymmdd(col->data + col->offsets[i], len, &dd[i]))
            vv[i >> 3] |= (uint8_t)(1u << (i & 7));
        else {
            nulls++;
            bb[i] = len > 0;
        }
    }
    return Py_BuildValue("(NNNn)", days, valid, bad, nulls);
fail:
    Py_XDECREF(days);
    Py_XDECREF(valid);
    Py_XDECREF(bad);
    return NULL;
}

/*
 * scan_columns(data: bytes) -> (n, groups, odd, abr_tags, others, line_tags, dates)
 *
 * The records scan() finds, in the same order, as columns: groups[g] for g in 0..26 is
 * (validity bitmap, int32 offsets, values, null count, flags), the buffers of an Arrow
 * binary array of n values in which a group that did not take part, or is empty, is null.
 * A record not in the canonical spelling has every group null and is listed in odd as
 * (its index, its whole text). abr_tags counts every "<ABR" of the chunk (data.count).
 * flags: F_EDGE, F_AMP, F_NONASCII above, over all the group's values.
 * others is (count, records, kinds, names, attributes): the other names of the canonical
 * records' tails as tail() lists them, records an int32 buffer, the rest
 * (validity, offsets, values, null count) of Arrow binary arrays; attributes is null for
 * an <OtherEntity>. line_tags counts the "<ABR" after the first that follow a newline
 * (data.count(b"\n<ABR", data.find(b"<ABR"))). dates holds date_column() of the group
 * pairs (0, 3), (5, 6) and (23, 24): the record's last update, ABN status and GST dates.
 */
static PyObject *scan_columns(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *data = view.buf;
    const char *end = data + view.len;
    Cols c;
    memset(&c, 0, sizeof c);
    PyObject *result = NULL, *groups = NULL;
    if (view.len >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a chunk of 2 GB or more");
        goto done;
    }
    c.odd = PyList_New(0);
    if (!c.odd || cols_grow(&c) < 0) goto nomem;
    for (int g = 0; g < NGROUPS - 1; g++) c.col[g].offsets[0] = 0;
    const char *s, *close;
    for (const char *p = data; (s = next_record(p, end, &close, &c.tags)) != NULL; p = close + 6) {
        M m;
        memset(&m, 0, sizeof m);
        m.p = s;
        m.end = close;
        c.found.n = 0;
        m.others = &c.found;
        int ok = canonical(&m);
        if (c.found.oom) goto nomem;
        if (ok && others_put(&c, (int32_t)c.n) < 0) goto nomem;
        if (c.n == c.cap && cols_grow(&c) < 0) goto nomem;
        if (!ok) {
            memset(&m, 0, sizeof m);
            PyObject *item = Py_BuildValue("(ny#)", c.n, s, (Py_ssize_t)((close + 6) - s));
            if (!item || PyList_Append(c.odd, item) < 0) { Py_XDECREF(item); goto done; }
            Py_DECREF(item);
        }
        for (int g = 0; g < NGROUPS - 1; g++)
            if (col_put(&c.col[g], c.n, m.gs[g], m.gl[g]) < 0) goto nomem;
        c.n++;
    }
    groups = PyList_New(NGROUPS - 1);
    if (!groups) goto done;
    for (int g = 0; g < NGROUPS - 1; g++) {
        PyObject *t = col_tuple(&c.col[g], c.n);
        if (!t) goto done;
        PyList_SET_ITEM(groups, g, t);
    }
    PyObject *dates = Py_BuildValue("(NNN)", date_column(&c, 0, 3), date_column(&c, 5, 6),
                                    date_column(&c, 23, 24));
    if (!dates) goto done;
    result = Py_BuildValue("(nOOn(ny#NNN)nN)", c.n, groups, c.odd, c.tags.abr, (Py_ssize_t)c.n_other,
                           c.other_rec ? (const char *)c.other_rec : "",
                           (Py_ssize_t)(c.n_other * sizeof(int32_t)), str_tuple(&c.other_kind),
                           str_tuple(&c.other_name), str_tuple(&c.other_attrs), c.tags.line,
                           dates);
    goto done;
nomem:
    PyErr_NoMemory();
done:
    Py_XDECREF(groups);
    cols_free(&c);
    PyBuffer_Release(&view);
    return result;
}

/* newlines(data) -> data.count(b"\n"), by memchr: several times faster where lines are long */
static PyObject *newlines(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *p = view.buf, *end = p + view.len;
    Py_ssize_t n = 0;
    Py_BEGIN_ALLOW_THREADS
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(n);
}

static PyMethodDef methods[] = {
    {"newlines", newlines, METH_O, "data.count(b'\\n'), faster on long lines."},
    {"scan", scan, METH_O, "Records of an ABR chunk, as _RECORDS_B.findall(data) returns them."},
    {"scan_columns", scan_columns, METH_O, "The records of scan(), as Arrow buffers per group."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_abrscan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__abrscan(void) {
    empty_bytes = PyBytes_FromStringAndSize("", 0);
    if (!empty_bytes) return NULL;
    return PyModule_Create(&module);
}
