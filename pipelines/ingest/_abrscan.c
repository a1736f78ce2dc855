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
#include <string.h>

#define NGROUPS 28
#define G_RAW 27

typedef struct {
    const char *p;   /* cursor */
    const char *end; /* end of the record span (just before "</ABR>") */
    const char *gs[NGROUPS];
    Py_ssize_t gl[NGROUPS];
} M;

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
static int name_element(M *m) {
    return lit(m, "<NonIndividualName type=\"") && attr_value(m, -1, 1) &&
           lit(m, "><NonIndividualNameText>") && (text(m, -1), 1) &&
           lit(m, "</NonIndividualNameText></NonIndividualName>");
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
                const char *in = m->p;
                if (!name_element(m)) m->p = in;
                if (lit(m, "</DGR>")) continue;
            }
        } else if (lit(m, "<OtherEntity>")) {
            if (name_element(m) && lit(m, "</OtherEntity>")) continue;
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

static PyObject *scan(PyObject *self, PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) return NULL;
    const char *data = view.buf;
    const char *end = data + view.len;
    PyObject *out = PyList_New(0);
    if (!out) { PyBuffer_Release(&view); return NULL; }
    const char *p = data;
    while (p < end) {
        const char *s = memmem(p, (size_t)(end - p), "<ABR", 4);
        if (!s || s + 4 >= end) break;
        char c = s[4];
        if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '>' || c == '/')) {
            p = s + 1;
            continue;
        }
        const char *close = memmem(s + 5, (size_t)(end - (s + 5)), "</ABR>", 6);
        if (!close) { p = s + 1; continue; } /* like the regex: no match at this start */
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
        p = close + 6;
    }
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef methods[] = {
    {"scan", scan, METH_O, "Records of an ABR chunk, as _RECORDS_B.findall(data) returns them."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_abrscan", NULL, -1, methods};

PyMODINIT_FUNC PyInit__abrscan(void) {
    empty_bytes = PyBytes_FromStringAndSize("", 0);
    if (!empty_bytes) return NULL;
    return PyModule_Create(&module);
}
