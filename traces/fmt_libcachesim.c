/*
 * fmt_libcachesim.c — libCacheSim's trace formats read as kv traces:
 * oracleGeneral (binary), csv and txt (docs/trace-format.md §7; the layouts
 * follow libCacheSim's readers, traceReader/customizedReader/oracle/
 * oracleGeneralBin.h and traceReader/generalReader/{csv,txt}.c, and its
 * reader parameters, bin/cli_reader_utils.c parse_reader_params).
 *
 * Every request becomes one GET of its object id with its size (a csv op
 * column may say SET or DEL instead), thread 0.  Streaming over the reader's
 * buffer: memory is one line, whatever the trace's length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "foreign.h"

/* ---- oracleGeneral: 24-byte little-endian records ----------------------
 *   u32 clock_time, u64 obj_id, u32 obj_size, i64 next_access_vtime */

#define OG_REC_BYTES 24

typedef struct og_state {
    rs_foreign f;
    uint64_t unit_ns;  /* one clock_time tick */
    int skip_zero;     /* skip obj_size 0 (cachesim's default) or refuse it */
    uint64_t prev_clock;
} og_state;

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static int og_fail(rs_trace *tr, og_state *st, rs_err *err, const char *what)
{
    tr->line = st->f.lineno;
    return rs_trace_fail(tr, err, "record %llu at byte %llu: %s", (unsigned long long)st->f.lineno,
                         (unsigned long long)(st->f.lineno - 1) * OG_REC_BYTES, what);
}

static int og_next(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    og_state *st = tr->imp;
    const uint8_t *p;
    int rc;

    for (;;) {
        if ((rc = rs_foreign_bytes(tr, &st->f, OG_REC_BYTES, &p, err)) <= 0)
            return rc;
        uint64_t clock = le32(p), size = le32(p + 12);
        if (RS_UNLIKELY(size == 0)) {
            if (st->skip_zero)
                continue;
            return og_fail(tr, st, err, "field obj_size: zero size (zero-size=skip skips it)");
        }
        if (RS_UNLIKELY(clock < st->prev_clock)) {
            char m[128];
            snprintf(m, sizeof m, "field clock_time: time goes backwards: %llu after %llu",
                     (unsigned long long)clock, (unsigned long long)st->prev_clock);
            return og_fail(tr, st, err, m);
        }
        if (RS_UNLIKELY(size > RS_REC_VALUE_MAX_BYTES))
            return og_fail(tr, st, err, "field obj_size: 4294967295, larger than a kv value may be "
                           "(at most 4294967294)");
        st->prev_clock = clock;
        *r_rec = (rs_rec){ .t_ns = clock * st->unit_ns, .key = le64(p + 4), .size_bytes = size,
                           .op = RS_OP_GET };
        return rs_foreign_emit(tr, &st->f, r_rec, err);
    }
}

static int og_open(rs_trace *tr, const char *text, rs_err *err)
{
    static const char *const known[] = { "time-unit", "zero-size", NULL };
    static const char *const zero[] = { "skip", "error", NULL };
    rs_spec spec;
    int zi, rc;
    og_state *st = calloc(1, sizeof *st);

    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory");
    tr->imp = st;
    tr->imp_free = free;
    tr->next = og_next;
    tr->daemon_id = RS_DAEMON_KV;
    if ((rc = rs_spec_parse(&spec, "oracleGeneral", text, known, err)) ||
        (rc = rs_spec_duration(&spec, "time-unit", 1000000000ull, &st->unit_ns, err)) ||
        (rc = rs_spec_choice(&spec, "zero-size", zero, 0, &zi, err)))
        return rc;
    if (st->unit_ns == 0)
        return rs_fail(err, RS_EINPUT, "oracleGeneral spec: field 'time-unit': must be > 0");
    if (st->unit_ns > UINT64_MAX / UINT32_MAX)
        return rs_fail(err, RS_EINPUT, "oracleGeneral spec: field 'time-unit': at most %llu ns "
                       "(a u32 clock_time must fit in 2^64 ns)",
                       (unsigned long long)(UINT64_MAX / UINT32_MAX));
    st->skip_zero = zi == 0;
    return 0;
}

const rs_trace_codec_ops rs_trace_codec_oracle_general = {
    .name = "oracleGeneral",
    .doc = "foreign, kv: libCacheSim oracleGeneral binary (24-byte records: u32 clock_time, "
           "u64 obj_id, u32 obj_size, i64 next_access_vtime), one GET each",
    .numbered_records = 1,
    .open_foreign = og_open,
    .example_spec = "",
};

/* ---- csv and txt ---------------------------------------------------------- */

#define CSV_MAX_COLS 64

enum { COL_TIME, COL_ID, COL_SIZE, COL_OP, COL_CNT, COL__N };
static const char *const col_keys[COL__N] = { "time-col", "obj-id-col", "obj-size-col", "op-col",
                                             "cnt-col" };
static const char *const col_names[COL__N] = { "time", "obj_id", "obj_size", "op", "cnt" };

typedef struct csv_state {
    rs_foreign f;
    int txt;                /* one object id per line, nothing else */
    uint64_t col[COL__N];   /* 1-based; 0 = absent */
    uint64_t ncols;         /* the largest column read */
    char delim;
    int header, id_num;
    uint64_t unit_ns, interval_ns, size;
    rs_rec rep;             /* a line with a count: the record repeated */
    uint64_t rep_left;
} csv_state;

static int id_field(rs_trace *tr, const csv_state *st, const char *s, uint64_t *r_key, rs_err *err)
{
    char q[64 * 4];
    if (!st->id_num) {
        *r_key = rs_foreign_hash(s, strlen(s));
        return 0;
    }
    if (rs_foreign_u64(s, r_key))
        return rs_trace_fail(tr, err, "field obj_id: '%s' is not a number (obj-id-is-num=true; "
                             "false hashes it)", rs_quote(q, sizeof q, s, strlen(s)));
    return 0;
}

static int op_parse(const char *s, uint8_t *r_op)
{
    static const struct { const char *name; uint8_t op; } names[] = {
        { "get", RS_OP_GET }, { "read", RS_OP_GET }, { "set", RS_OP_SET },
        { "write", RS_OP_SET }, { "put", RS_OP_SET }, { "del", RS_OP_DEL },
        { "delete", RS_OP_DEL },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(s, names[i].name)) {
            *r_op = names[i].op;
            return 0;
        }
    return -1;
}

/* A time field: a non-negative decimal, maybe with a fraction, in ticks of
 * unit_ns; the result must fit in u64 ns. */
static int time_field(rs_trace *tr, const csv_state *st, const char *s, uint64_t *r_ns, rs_err *err)
{
    char q[64 * 4], *end;
    const char *dot = strchr(s, '.');
    uint64_t whole;
    char ip[32];
    size_t in = dot ? (size_t)(dot - s) : strlen(s);

    if (in == 0 || in >= sizeof ip)
        goto bad;
    memcpy(ip, s, in);
    ip[in] = '\0';
    if (rs_foreign_u64(ip, &whole) || (ip[0] == '0' && ip[1] == 'x'))
        goto bad;
    double frac = 0;
    if (dot) {
        if (!dot[1] || strspn(dot + 1, "0123456789") != strlen(dot + 1))
            goto bad;
        frac = strtod(dot, &end);
    }
    if (whole > UINT64_MAX / st->unit_ns)
        return rs_trace_fail(tr, err, "field time: '%s' x %llu ns passes 2^64 ns",
                             rs_quote(q, sizeof q, s, strlen(s)), (unsigned long long)st->unit_ns);
    uint64_t ns = whole * st->unit_ns, f = (uint64_t)(frac * (double)st->unit_ns);
    if (f > UINT64_MAX - ns)
        return rs_trace_fail(tr, err, "field time: '%s' passes 2^64 ns",
                             rs_quote(q, sizeof q, s, strlen(s)));
    *r_ns = ns + f;
    return 0;
bad:
    return rs_trace_fail(tr, err, "field time: '%s' is not a non-negative number",
                         rs_quote(q, sizeof q, s, strlen(s)));
}

/* Split line at delim into at most CSV_MAX_COLS fields (trimmed, a
 * surrounding pair of double quotes removed); returns the count, or
 * CSV_MAX_COLS + 1 when there are more. */
static int csv_split(char *s, char delim, char **f)
{
    int n = 0;
    for (;;) {
        char *end = strchr(s, delim);
        if (n == CSV_MAX_COLS)
            return CSV_MAX_COLS + 1;
        if (end)
            *end = '\0';
        char *v = rs_foreign_trim(s);
        size_t len = strlen(v);
        if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
            v[len - 1] = '\0';
            v++;
        }
        f[n++] = v;
        if (!end)
            return n;
        s = end + 1;
    }
}

static int csv_line(rs_trace *tr, csv_state *st, char *line, rs_rec *r_rec, rs_err *err)
{
    char *f[CSV_MAX_COLS], q[64 * 4];
    uint64_t cnt = 1;
    int n, rc;

    *r_rec = (rs_rec){ .op = RS_OP_GET, .size_bytes = st->size };
    if (st->txt) {
        f[0] = rs_foreign_trim(line);
        n = 1;
    } else if ((n = csv_split(line, st->delim, f)) > CSV_MAX_COLS) {
        return rs_trace_fail(tr, err, "more than %d fields", CSV_MAX_COLS);
    }
    if ((uint64_t)n < st->ncols)
        for (int c = 0; c < COL__N; c++)
            if (st->col[c] > (uint64_t)n)
                return rs_trace_fail(tr, err, "wrong field count: %d field%s, but %s=%llu (%s)", n,
                                     n == 1 ? "" : "s", col_keys[c],
                                     (unsigned long long)st->col[c], col_names[c]);
    if ((rc = id_field(tr, st, f[st->col[COL_ID] - 1], &r_rec->key, err)))
        return rc;
    if (st->col[COL_SIZE]) {
        const char *s = f[st->col[COL_SIZE] - 1];
        if (rs_foreign_u64(s, &r_rec->size_bytes))
            return rs_trace_fail(tr, err, "field obj_size: '%s' is not a number",
                                 rs_quote(q, sizeof q, s, strlen(s)));
    }
    if (st->col[COL_OP]) {
        const char *s = f[st->col[COL_OP] - 1];
        if (op_parse(s, &r_rec->op))
            return rs_trace_fail(tr, err, "field op: unknown op '%s' (get, read, set, write, put, "
                                 "del, delete)", rs_quote(q, sizeof q, s, strlen(s)));
    }
    if (r_rec->op != RS_OP_DEL && r_rec->size_bytes == 0)
        return rs_trace_fail(tr, err, "field obj_size: zero size (must be > 0)");
    if (r_rec->size_bytes > RS_REC_VALUE_MAX_BYTES)
        return rs_trace_fail(tr, err, "field obj_size: %llu larger than a kv value may be (at most "
                             "%llu)", (unsigned long long)r_rec->size_bytes,
                             (unsigned long long)RS_REC_VALUE_MAX_BYTES);
    if (st->col[COL_CNT]) {
        const char *s = f[st->col[COL_CNT] - 1];
        if (rs_foreign_u64(s, &cnt) || cnt == 0)
            return rs_trace_fail(tr, err, "field cnt: '%s' is not a count >= 1",
                                 rs_quote(q, sizeof q, s, strlen(s)));
        if (cnt > RS_FOREIGN_MAX_RECORDS_PER_LINE)
            return rs_trace_fail(tr, err, "field cnt: %llu requests on one line, more than %llu "
                                 "records per line", (unsigned long long)cnt,
                                 RS_FOREIGN_MAX_RECORDS_PER_LINE);
    }
    if (st->col[COL_TIME]) {
        if ((rc = time_field(tr, st, f[st->col[COL_TIME] - 1], &r_rec->t_ns, err)))
            return rc;
        if (r_rec->t_ns < tr->prev_t_ns)
            return rs_trace_fail(tr, err, "field time: time goes backwards: %llu ns after %llu ns",
                                 (unsigned long long)r_rec->t_ns,
                                 (unsigned long long)tr->prev_t_ns);
    } else {
        if (st->interval_ns && st->f.records > UINT64_MAX / st->interval_ns)
            return rs_trace_fail(tr, err, "request %llu at the interval passes 2^64 ns",
                                 (unsigned long long)st->f.records + 1);
        r_rec->t_ns = st->f.records * st->interval_ns;
    }
    st->rep = *r_rec;
    st->rep_left = cnt - 1;
    return 1;
}

static int csv_next(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    csv_state *st = tr->imp;
    int rc;

    if (st->rep_left) {
        st->rep_left--;
        *r_rec = st->rep;
        return rs_foreign_emit(tr, &st->f, r_rec, err);
    }
    for (;;) {
        if ((rc = rs_foreign_line(tr, &st->f, err)) <= 0)
            return rc;
        if (!*rs_foreign_trim(st->f.line))
            continue; /* a blank line */
        if (st->header && st->f.lineno == 1)
            continue;
        if ((rc = csv_line(tr, st, st->f.line, r_rec, err)) < 0)
            return rc;
        return rs_foreign_emit(tr, &st->f, r_rec, err);
    }
}

static int csv_open_as(rs_trace *tr, const char *text, int txt, rs_err *err)
{
    static const char *const csv_known[] = { "time-col", "obj-id-col", "obj-size-col", "op-col",
                                             "cnt-col", "delimiter", "has-header", "header",
                                             "obj-id-is-num", "time-unit", "interval", "obj-size",
                                             NULL };
    static const char *const txt_known[] = { "obj-id-is-num", "obj-size", "interval", NULL };
    const char *name = txt ? "txt" : "csv";
    rs_spec spec;
    int rc, h1, h2;
    csv_state *st = calloc(1, sizeof *st);

    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory");
    tr->imp = st;
    tr->imp_free = free;
    tr->next = csv_next;
    tr->daemon_id = RS_DAEMON_KV;
    st->txt = txt;
    if ((rc = rs_spec_parse(&spec, name, text, txt ? txt_known : csv_known, err)) ||
        (rc = rs_spec_bool(&spec, "obj-id-is-num", 0, &st->id_num, err)) ||
        (rc = rs_spec_duration(&spec, "interval", 0, &st->interval_ns, err)) ||
        (rc = rs_spec_size(&spec, "obj-size", 1, 1, RS_REC_VALUE_MAX_BYTES, &st->size, err)))
        return rc;
    if (txt) {
        st->col[COL_ID] = st->ncols = 1;
        return 0;
    }
    for (int c = 0; c < COL__N; c++) {
        if ((rc = rs_spec_u64(&spec, col_keys[c], 0, 1, CSV_MAX_COLS, &st->col[c], err)))
            return rc;
        if (st->col[c] > st->ncols)
            st->ncols = st->col[c];
        for (int d = 0; d < c; d++)
            if (st->col[c] && st->col[c] == st->col[d])
                return rs_fail(err, RS_EINPUT, "csv spec: fields '%s' and '%s' name the same column "
                               "%llu", col_keys[d], col_keys[c], (unsigned long long)st->col[c]);
    }
    if (!st->col[COL_ID])
        return rs_fail(err, RS_EINPUT, "csv spec: needs obj-id-col=N (the object id's column, "
                       "1-based)");
    if (st->col[COL_SIZE] && rs_spec_get(&spec, "obj-size"))
        return rs_fail(err, RS_EINPUT, "csv spec: obj-size (one size for all) and obj-size-col "
                       "both given");
    if (st->col[COL_TIME] && rs_spec_get(&spec, "interval"))
        return rs_fail(err, RS_EINPUT, "csv spec: interval (times by line) and time-col both given");
    if (!st->col[COL_TIME] && rs_spec_get(&spec, "time-unit"))
        return rs_fail(err, RS_EINPUT, "csv spec: time-unit without time-col");
    if (rs_spec_get(&spec, "has-header") && rs_spec_get(&spec, "header"))
        return rs_fail(err, RS_EINPUT, "csv spec: has-header and header both given (the same field)");
    if ((rc = rs_spec_bool(&spec, "has-header", 0, &h1, err)) ||
        (rc = rs_spec_bool(&spec, "header", 0, &h2, err)) ||
        (rc = rs_spec_duration(&spec, "time-unit", 1000000000ull, &st->unit_ns, err)))
        return rc;
    if (st->unit_ns == 0)
        return rs_fail(err, RS_EINPUT, "csv spec: field 'time-unit': must be > 0");
    st->header = h1 || h2;
    const char *d = rs_spec_get(&spec, "delimiter");
    st->delim = ',';
    if (d && (!strcmp(d, "\\t") || !strcasecmp(d, "tab")))
        st->delim = '\t';
    else if (d && (!strcasecmp(d, "space")))
        st->delim = ' ';
    else if (d && strlen(d) == 1 && d[0] != '"' && d[0] != '\r')
        st->delim = d[0];
    else if (d)
        return rs_fail(err, RS_EINPUT, "csv spec: field 'delimiter': '%s' is not one character "
                       "(or \\t, tab, space)", d);
    return 0;
}

static int csv_open(rs_trace *tr, const char *text, rs_err *err)
{
    return csv_open_as(tr, text, 0, err);
}

static int txt_open(rs_trace *tr, const char *text, rs_err *err)
{
    return csv_open_as(tr, text, 1, err);
}

const rs_trace_codec_ops rs_trace_codec_csv = {
    .name = "csv",
    .doc = "foreign, kv: libCacheSim-style csv; spec time-col, obj-id-col, obj-size-col, op-col, "
           "cnt-col (1-based), delimiter, has-header, obj-id-is-num, time-unit, interval, obj-size",
    .open_foreign = csv_open,
    .example = "time,id,size,op\n1,a,100,get\n2,17,4096,set\n2,a,100,get\n5,b,1,del\n",
    .example_spec = "time-col=1,obj-id-col=2,obj-size-col=3,op-col=4,delimiter=,,has-header=true",
};

const rs_trace_codec_ops rs_trace_codec_txt = {
    .name = "txt",
    .doc = "foreign, kv: libCacheSim txt, one object id per line; spec obj-id-is-num, obj-size "
           "(default 1), interval (default 0)",
    .open_foreign = txt_open,
    .example = "1\n2\n1\n3\n",
    .example_spec = "obj-id-is-num=true,obj-size=4K",
};
