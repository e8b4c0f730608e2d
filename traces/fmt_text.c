/*
 * fmt_text.c — the text (TSV) trace encoding (v1); docs/trace-format.md §2.
 *
 *   #rssim-trace<TAB>v1<TAB>daemon=kv
 *   t_ns<TAB>op<TAB>key<TAB>size_bytes<TAB>thread<TAB>aux
 *   1000<TAB>GET<TAB>42<TAB>4096<TAB>0<TAB>0
 *
 * Records have 6 fields, or 4 (thread and aux omitted, read as 0); numbers
 * are unsigned decimal; the op is its name.  Later lines starting with '#'
 * are comments, empty lines are skipped, a trailing CR is ignored.  Lines
 * are found with memchr in the reader's buffer and numbers are parsed by
 * hand (no sscanf/strtoull: no locale, no copies, exact error kinds): a
 * one-pass fast path takes well-formed lines, and anything it does not
 * accept goes to a slower parser that splits the fields first and names
 * exactly what is wrong (or accepts, e.g. 20-digit numbers).  A
 * line must fit the reader's buffer (1 MiB).  The writer always writes all
 * 6 fields, so text -> binary -> text reproduces the bytes of a canonical
 * text trace.
 */
#include <stdio.h>
#include <string.h>

#include "format.h"

static const char header_magic[] = "#rssim-trace\t";
static const char header_version[] = "v1";
static const char columns[] = "t_ns\top\tkey\tsize_bytes\tthread\taux";
static const char *const field_names[6] = { "t_ns", "op", "key", "size_bytes", "thread", "aux" };

static int text_sniff(const uint8_t *p, size_t n)
{
    return n >= 1 && p[0] == '#';
}

/* The next line at tr->pos, without its '\n' (and a trailing '\r'):
 * 1 = a line, 0 = end of input, < 0 = error.  tr->line is not advanced. */
static int text_line(rs_trace *tr, const uint8_t **r_s, size_t *r_n, rs_err *err)
{
    size_t scanned = 0;

    for (;;) {
        const uint8_t *start = tr->buf + tr->pos;
        size_t avail = tr->len - tr->pos, n;
        const uint8_t *nl = memchr(start + scanned, '\n', avail - scanned);
        if (RS_LIKELY(nl != NULL)) {
            n = (size_t)(nl - start);
            tr->pos += n + 1;
        } else if (tr->eof) {
            if (avail == 0)
                return 0;
            n = avail; /* last line without '\n' */
            tr->pos += n;
        } else {
            if (avail == tr->cap)
                return rs_trace_fail(tr, err, "line too long (more than %zu bytes)", tr->cap);
            scanned = avail;
            int rc = rs_trace_fill(tr, avail + 1, err);
            if (rc)
                return rc;
            continue;
        }
        if (n && start[n - 1] == '\r')
            n--;
        *r_s = start;
        *r_n = n;
        return 1;
    }
}

static int span_is(const uint8_t *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n == k && memcmp(s, lit, k) == 0;
}

static int text_read_header(rs_trace *tr, rs_err *err)
{
    const uint8_t *s = NULL;
    size_t n = 0;
    char q[256];
    int rc = text_line(tr, &s, &n, err);

    if (rc < 0)
        return rc;
    size_t k = sizeof header_magic - 1;
    const uint8_t *ver = s, *tab = NULL, *end = s + n;
    if (rc == 1 && n > k && memcmp(s, header_magic, k) == 0) {
        ver = s + k;
        tab = memchr(ver, '\t', (size_t)(end - ver));
    }
    if (!tab)
        return rs_trace_fail(tr, err, "wrong header: expected '#rssim-trace<TAB>v1<TAB>daemon=KIND', got '%s'",
                             rc == 1 ? rs_quote(q, sizeof q, s, n) : "");
    if (!span_is(ver, (size_t)(tab - ver), header_version))
        return rs_trace_fail(tr, err, "unsupported version '%s' (this rssim reads %s)",
                             rs_quote(q, sizeof q, ver, (size_t)(tab - ver)), header_version);
    const uint8_t *kind = tab + 1;
    if ((size_t)(end - kind) < 7 || memcmp(kind, "daemon=", 7) != 0)
        return rs_trace_fail(tr, err, "wrong header: expected 'daemon=KIND' after the version, got '%s'",
                             rs_quote(q, sizeof q, kind, (size_t)(end - kind)));
    kind += 7;
    char name[32];
    size_t kn = (size_t)(end - kind);
    int id = -1;
    if (kn < sizeof name && !memchr(kind, '\0', kn)) {
        memcpy(name, kind, kn);
        name[kn] = '\0';
        id = rs_trace_daemon_id(name);
    }
    if (id < 1)
        return rs_trace_fail(tr, err, "unknown daemon kind '%s' (known: kv, alloc, mds, osd)",
                             rs_quote(q, sizeof q, kind, kn));
    tr->daemon_id = (unsigned)id;
    tr->line = 2;
    if ((rc = text_line(tr, &s, &n, err)) < 0)
        return rc;
    if (rc == 0)
        return rs_trace_fail(tr, err, "missing column names: expected 't_ns<TAB>op<TAB>key<TAB>size_bytes<TAB>thread<TAB>aux'");
    if (!span_is(s, n, columns))
        return rs_trace_fail(tr, err, "wrong column names: expected 't_ns<TAB>op<TAB>key<TAB>size_bytes<TAB>thread<TAB>aux', got '%s'",
                             rs_quote(q, sizeof q, s, n));
    tr->line = 3;
    return 0;
}

enum { NUM_OK = 0, NUM_NONNUMERIC, NUM_NEGATIVE, NUM_RANGE };

/* Unsigned decimal in [0, max]. */
static inline int parse_u64(const uint8_t *s, size_t n, uint64_t max, uint64_t *r_v)
{
    uint64_t v = 0;
    int over = 0;

    if (RS_UNLIKELY(n == 0))
        return NUM_NONNUMERIC;
    if (RS_UNLIKELY(s[0] == '-')) {
        for (size_t i = 1; i < n; i++)
            if ((unsigned)(s[i] - '0') > 9)
                return NUM_NONNUMERIC;
        return n > 1 ? NUM_NEGATIVE : NUM_NONNUMERIC;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (RS_UNLIKELY(d > 9))
            return NUM_NONNUMERIC;
        if (RS_UNLIKELY(v > (UINT64_MAX - d) / 10))
            over = 1;
        v = v * 10 + d;
    }
    if (RS_UNLIKELY(over || v > max))
        return NUM_RANGE;
    *r_v = v;
    return NUM_OK;
}

static int field_fail(rs_trace *tr, rs_err *err, int kind, int field, const uint8_t *s,
                      size_t n, uint64_t max)
{
    char q[256];
    rs_quote(q, sizeof q, s, n);
    if (kind == NUM_NEGATIVE)
        return rs_trace_fail(tr, err, "negative %s '%s'", field_names[field], q);
    if (kind == NUM_RANGE)
        return rs_trace_fail(tr, err, "%s '%s' out of range (max %llu)", field_names[field], q,
                             (unsigned long long)max);
    return rs_trace_fail(tr, err, "non-numeric %s '%s'", field_names[field], q);
}

/* The op named by s[0..n), or -1. */
static inline int op_lookup(const rs_trace *tr, const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < tr->nops; i++)
        if (tr->ops[i].len == n && memcmp(tr->ops[i].name, s, n) == 0)
            return tr->ops[i].op;
    return -1;
}

/* 1 to 19 digits (so no overflow is possible) at p: the end of the digits,
 * or NULL when there are none or more than 19. */
static inline const uint8_t *fast_u64(const uint8_t *p, const uint8_t *end, uint64_t *r_v)
{
    const uint8_t *start = p;
    uint64_t v = 0;
    unsigned d;
    while (p < end && (d = (unsigned)(*p - '0')) <= 9) {
        v = v * 10 + d;
        p++;
    }
    if (p == start || p - start > 19)
        return NULL;
    *r_v = v;
    return p;
}

/* One pass over a well-formed record line; 0 = anything unusual (then
 * text_parse_slow finds and names the problem). */
static inline int text_parse_fast(const rs_trace *tr, const uint8_t *s, size_t n, rs_rec *r)
{
    const uint8_t *p = s, *end = s + n, *q;
    uint64_t t_ns, key, size_bytes, thread = 0, aux = 0;
    int op;

    if (!(p = fast_u64(p, end, &t_ns)) || p == end || *p++ != '\t')
        return 0;
    for (q = p; p < end && *p != '\t'; p++)
        ;
    if (p == end || (op = op_lookup(tr, q, (size_t)(p - q))) < 0)
        return 0;
    p++;
    if (!(p = fast_u64(p, end, &key)) || p == end || *p++ != '\t')
        return 0;
    if (!(p = fast_u64(p, end, &size_bytes)))
        return 0;
    if (p != end) {
        if (*p++ != '\t' || !(p = fast_u64(p, end, &thread)) || p == end || *p++ != '\t' ||
            !(p = fast_u64(p, end, &aux)) || p != end || thread > UINT16_MAX || aux > UINT32_MAX)
            return 0;
    }
    r->t_ns = t_ns;
    r->op = (uint8_t)op;
    r->key = key;
    r->size_bytes = size_bytes;
    r->thread = (uint16_t)thread;
    r->aux = (uint32_t)aux;
    r->flags = 0;
    return 1;
}

static int text_parse_slow(rs_trace *tr, const uint8_t *s, size_t n, rs_rec *r, rs_err *err)
{
    static const uint64_t max[6] = { UINT64_MAX, 0, UINT64_MAX, UINT64_MAX, UINT16_MAX, UINT32_MAX };
    const uint8_t *f[6];
    size_t fl[6], nf = 0;
    const uint8_t *p = s, *end = s + n;
    uint64_t v[6] = { 0 };

    for (;;) {
        const uint8_t *q = p;
        while (q < end && *q != '\t')
            q++;
        if (nf == 6) { /* a 7th field: count the rest for the message */
            nf++;
            for (; q < end; q++)
                nf += *q == '\t';
            break;
        }
        f[nf] = p;
        fl[nf++] = (size_t)(q - p);
        if (q == end)
            break;
        p = q + 1;
    }
    if (RS_UNLIKELY(nf != 4 && nf != 6))
        return rs_trace_fail(tr, err, "wrong field count: %zu field%s, expected 4 (t_ns op key size_bytes) "
                                      "or 6 (... thread aux)", nf, nf == 1 ? "" : "s");
    for (size_t i = 0; i < nf; i++) {
        if (i == 1)
            continue;
        int k = parse_u64(f[i], fl[i], max[i], &v[i]);
        if (RS_UNLIKELY(k != NUM_OK))
            return field_fail(tr, err, k, (int)i, f[i], fl[i], max[i]);
    }
    int op = op_lookup(tr, f[1], fl[1]);
    if (RS_UNLIKELY(op < 0)) {
        char q[256];
        return rs_trace_fail(tr, err, "unknown op '%s'", rs_quote(q, sizeof q, f[1], fl[1]));
    }
    r->t_ns = v[0];
    r->op = (uint8_t)op;
    r->key = v[2];
    r->size_bytes = v[3];
    r->thread = (uint16_t)v[4];
    r->aux = (uint32_t)v[5];
    r->flags = 0;
    return 0;
}

static int text_parse(rs_trace *tr, const uint8_t *s, size_t n, rs_rec *r, rs_err *err)
{
    if (RS_UNLIKELY(tr->no_fast_path || !text_parse_fast(tr, s, n, r))) {
        int rc = text_parse_slow(tr, s, n, r, err);
        if (rc)
            return rc;
    }
    int fault = rs_rec_fault(tr->op_class, tr->prev_t_ns, r);
    if (RS_UNLIKELY(fault)) {
        char where[1200];
        snprintf(where, sizeof where, "%s:%llu", tr->path, (unsigned long long)tr->line);
        return rs_rec_fail(err, where, fault, tr->prev_t_ns, r, tr->daemon_id);
    }
    return 0;
}

static int text_next(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    for (;;) {
        const uint8_t *s = NULL;
        size_t n = 0;
        int rc = text_line(tr, &s, &n, err);
        if (rc <= 0)
            return rc;
        if (n == 0 || s[0] == '#') {
            tr->line++;
            continue;
        }
        if ((rc = text_parse(tr, s, n, r_rec, err)))
            return rc;
        tr->prev_t_ns = r_rec->t_ns;
        tr->line++;
        return 1;
    }
}

static const char digits2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static inline uint8_t *put_u64(uint8_t *p, uint64_t v)
{
    uint8_t tmp[20];
    size_t i = sizeof tmp;

    while (v >= 100) {
        unsigned d = (unsigned)(v % 100);
        v /= 100;
        i -= 2;
        memcpy(tmp + i, digits2 + 2 * d, 2);
    }
    if (v >= 10) {
        i -= 2;
        memcpy(tmp + i, digits2 + 2 * v, 2);
    } else {
        tmp[--i] = (uint8_t)('0' + v);
    }
    memcpy(p, tmp + i, sizeof tmp - i);
    return p + (sizeof tmp - i);
}

static void text_write_header(rs_trace_writer *w)
{
    int n = snprintf((char *)w->buf + w->len, w->cap - w->len, "%s%s\tdaemon=%s\n%s\n",
                     header_magic, header_version, rs_trace_daemon_name(w->daemon_id), columns);
    w->len += (size_t)n;
}

static void text_encode(rs_trace_writer *w, const rs_rec *r)
{
    uint8_t *p = w->buf + w->len;
    const char *op = rs_op_name(r->op);
    size_t k = strlen(op);

    p = put_u64(p, r->t_ns);
    *p++ = '\t';
    memcpy(p, op, k);
    p += k;
    *p++ = '\t';
    p = put_u64(p, r->key);
    *p++ = '\t';
    p = put_u64(p, r->size_bytes);
    *p++ = '\t';
    p = put_u64(p, r->thread);
    *p++ = '\t';
    p = put_u64(p, r->aux);
    *p++ = '\n';
    w->len = (size_t)(p - w->buf);
}

const rs_trace_codec_ops rs_trace_codec_text = {
    .name = "text",
    .doc = "tab-separated lines with a version and daemon header; readable and diffable",
    .rec_max_bytes = 128, /* 20+6+20+20+5+10 digits/letters + 6 separators = 87 */
    .sniff = text_sniff,
    .read_header = text_read_header,
    .next = text_next,
    .write_header = text_write_header,
    .encode = text_encode,
};
