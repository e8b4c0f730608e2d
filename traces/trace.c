/*
 * trace.c — the trace reader and writer, op and daemon tables, summaries and
 * SHA-256; see trace.h, and docs/trace-format.md for the format itself.
 *
 * The reader reads a plain (uncompressed) regular file or memory block in
 * place: the file is mapped read-only (stream.h, rs_src_view) and the
 * encoding decodes straight from the mapping, through a window of
 * RS_TRACE_BUF_BYTES (1 MiB) that moves over it, so a plain binary trace
 * costs a 32-byte decode and four compares per record and no copy; pages
 * behind the window are given back, so memory stays bounded whatever the
 * trace's length.  Anything else (gzip, zstd, a pipe) fills one buffer of
 * RS_TRACE_BUF_BYTES from its byte source (stream.h); the window and the
 * buffer hold the same bytes, so every encoding reads both the same way.
 * The encoding (format.h codecs in fmt_text.c and fmt_binary.c) is chosen
 * from the first decompressed bytes.
 *
 * The writer encodes into its own 1 MiB buffer, drains it into a sink chosen
 * from the output name (.gz, .zst), and writes PATH.tmp, renamed to PATH
 * only by a successful rs_trace_writer_close, so a failed or abandoned write
 * never leaves a partial trace under the final name.
 *
 * SHA-256 follows FIPS 180-4 (sections 4.1.2, 4.2.2, 5.1.1, 6.2); it runs
 * once per run over the trace file, so it is written for clarity.
 */
#include "trace.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"
#include "../sim/base/hash.h"

/* ---- ops and daemon kinds -------------------------------------------- */

#define DAEMON_BIT(id) (1u << (id))

typedef struct op_info {
    const char *name;
    unsigned daemons; /* DAEMON_BIT of each kind whose traces may hold it */
    int sized;        /* RS_OPC_*: what size_bytes may be (0: RS_OPC_ANY_SIZE) */
} op_info;

/* Op codes are part of the binary format (trace.h).  Adding an op = one line
 * here (and its meaning in docs/trace-format.md). */
static const op_info ops[RS_OP__MAX + 1] = {
    [RS_OP_GET] = { .name = "GET", .daemons = DAEMON_BIT(RS_DAEMON_KV), .sized = RS_OPC_VALUE },
    [RS_OP_SET] = { .name = "SET", .daemons = DAEMON_BIT(RS_DAEMON_KV), .sized = RS_OPC_VALUE },
    [RS_OP_DEL] = { .name = "DEL", .daemons = DAEMON_BIT(RS_DAEMON_KV), .sized = 0 },
    [RS_OP_PIN] = { .name = "PIN", .daemons = DAEMON_BIT(RS_DAEMON_KV), .sized = 0 },
    [RS_OP_UNPIN] = { .name = "UNPIN", .daemons = DAEMON_BIT(RS_DAEMON_KV), .sized = 0 },
    [RS_OP_MALLOC] = { .name = "MALLOC", .daemons = DAEMON_BIT(RS_DAEMON_ALLOC), .sized = RS_OPC_MALLOC },
    [RS_OP_FREE] = { .name = "FREE", .daemons = DAEMON_BIT(RS_DAEMON_ALLOC), .sized = 0 },
    [RS_OP_RELEASE] = { .name = "RELEASE", .daemons = DAEMON_BIT(RS_DAEMON_ALLOC), .sized = 0 },
#define MDS_OP(op, name_) [op] = { .name = name_, .daemons = DAEMON_BIT(RS_DAEMON_MDS), .sized = 0 }
    MDS_OP(RS_OP_MKDIR, "MKDIR"),
    MDS_OP(RS_OP_CREATE, "CREATE"),
    MDS_OP(RS_OP_LOOKUP, "LOOKUP"),
    MDS_OP(RS_OP_GETATTR, "GETATTR"),
    MDS_OP(RS_OP_OPEN, "OPEN"),
    MDS_OP(RS_OP_CLOSE, "CLOSE"),
    MDS_OP(RS_OP_READDIR, "READDIR"),
    MDS_OP(RS_OP_UNLINK, "UNLINK"),
    MDS_OP(RS_OP_RMDIR, "RMDIR"),
#undef MDS_OP
    [RS_OP_READ] = { .name = "READ", .daemons = DAEMON_BIT(RS_DAEMON_OSD), .sized = RS_OPC_SIZED },
    [RS_OP_WRITE] = { .name = "WRITE", .daemons = DAEMON_BIT(RS_DAEMON_OSD), .sized = RS_OPC_SIZED },
};

static const char *const daemon_names[RS_DAEMON__COUNT] = {
    [RS_DAEMON_KV] = "kv",
    [RS_DAEMON_ALLOC] = "alloc",
    [RS_DAEMON_MDS] = "mds",
    [RS_DAEMON_OSD] = "osd",
};

const char *rs_op_name(unsigned op)
{
    return op <= RS_OP__MAX ? ops[op].name : NULL;
}

int rs_op_parse(const char *name, size_t len)
{
    for (unsigned op = 0; op <= RS_OP__MAX; op++) {
        const char *n = ops[op].name;
        if (n && strlen(n) == len && memcmp(n, name, len) == 0)
            return (int)op;
    }
    return -1;
}

int rs_trace_daemon_id(const char *name)
{
    for (int id = 0; id < RS_DAEMON__COUNT; id++)
        if (daemon_names[id] && strcmp(daemon_names[id], name) == 0)
            return id;
    return -1;
}

const char *rs_trace_daemon_name(unsigned id)
{
    return id < RS_DAEMON__COUNT ? daemon_names[id] : NULL;
}

void rs_op_class_fill(unsigned daemon_id, uint8_t r_class[RS_OP__MAX + 1])
{
    for (unsigned op = 0; op <= RS_OP__MAX; op++) {
        if (!ops[op].name)
            r_class[op] = RS_OPC_UNKNOWN;
        else if (!(ops[op].daemons & DAEMON_BIT(daemon_id)))
            r_class[op] = RS_OPC_FOREIGN;
        else
            r_class[op] = ops[op].sized ? (uint8_t)ops[op].sized : RS_OPC_ANY_SIZE;
    }
}

size_t rs_op_entries(rs_op_entry r_ops[RS_OP__MAX + 1])
{
    size_t n = 0;
    for (unsigned op = 0; op <= RS_OP__MAX; op++) {
        if (!ops[op].name)
            continue;
        r_ops[n].name = ops[op].name;
        r_ops[n].len = strlen(ops[op].name);
        r_ops[n++].op = (uint8_t)op;
    }
    return n;
}

int rs_rec_fail(rs_err *err, const char *where, int fault, uint64_t prev_t_ns,
                const rs_rec *rec, unsigned daemon_id)
{
    const char *daemon = rs_trace_daemon_name(daemon_id);

    switch (fault) {
    case RS_REC_OP_UNKNOWN:
        return rs_fail(err, RS_EINPUT, "%s: unknown op %u", where, rec->op);
    case RS_REC_OP_FOREIGN:
        return rs_fail(err, RS_EINPUT, "%s: op '%s' is not allowed in a %s trace", where,
                       ops[rec->op].name, daemon ? daemon : "?");
    case RS_REC_ZERO_SIZE:
        return rs_fail(err, RS_EINPUT, "%s: zero size_bytes for %s (must be > 0)", where,
                       ops[rec->op].name);
    case RS_REC_TIME_BACK:
        return rs_fail(err, RS_EINPUT, "%s: time goes backwards: t_ns %llu after %llu", where,
                       (unsigned long long)rec->t_ns, (unsigned long long)prev_t_ns);
    case RS_REC_SIZE_MAX:
        return rs_fail(err, RS_EINPUT, "%s: size_bytes %llu too large for %s (at most %llu)", where,
                       (unsigned long long)rec->size_bytes, ops[rec->op].name,
                       (unsigned long long)(rec->op == RS_OP_MALLOC ? RS_REC_MALLOC_MAX_BYTES
                                                                    : RS_REC_VALUE_MAX_BYTES));
    case RS_REC_FLAGS:
        return rs_fail(err, RS_EINPUT, "%s: nonzero flags 0x%02x (reserved, must be 0)", where,
                       rec->flags);
    }
    return rs_fail(err, RS_EINTERNAL, "%s: record check failed (%d)", where, fault);
}

char *rs_quote(char *dst, size_t cap, const void *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *p = s;
    size_t o = 0, shown = n > 48 ? 48 : n;

    for (size_t i = 0; i < shown && o + 5 < cap; i++) {
        uint8_t c = p[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            dst[o++] = (char)c;
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        }
    }
    if (shown < n && o + 4 < cap) {
        memcpy(dst + o, "...", 3);
        o += 3;
    }
    dst[o] = '\0';
    return dst;
}

const rs_trace_codec_ops *const rs_trace_codecs[] = { RS_TRACE_CODECS, NULL };

const rs_trace_codec_ops *rs_trace_codec_find(const char *name)
{
    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c; c++)
        if (strcmp((*c)->name, name) == 0)
            return *c;
    return NULL;
}

const char *rs_trace_codec_names(int want, char *buf, size_t cap)
{
    size_t n = 0;
    if (cap)
        buf[0] = '\0';
    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c && n < cap; c++)
        if ((want == 'w' && (*c)->encode) ||
            (want == 'i' && ((*c)->import_line || (*c)->import_file || (*c)->open_foreign)) ||
            (want == 'f' && (*c)->open_foreign))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", (*c)->name);
    return buf;
}

/* ---- reader ------------------------------------------------------------ */

/* Read in place: move the window to [pos, pos + cap). */
static int fill_view(rs_trace *tr, rs_err *err)
{
    int rc = rs_src_view_advance(&tr->src, tr->pos, err);
    if (rc)
        return rs_err_prefix(err, "%s:%llu", tr->path, (unsigned long long)tr->line);
    tr->len = tr->view_len - tr->pos > tr->cap ? tr->pos + tr->cap : tr->view_len;
    tr->eof = tr->len == tr->view_len;
    return 0;
}

int rs_trace_fill(rs_trace *tr, size_t need, rs_err *err)
{
    if (!tr->own_buf)
        return tr->len - tr->pos < need && !tr->eof ? fill_view(tr, err) : 0;
    while (tr->len - tr->pos < need && !tr->eof) {
        size_t n;
        if (tr->pos) {
            memmove(tr->own_buf, tr->buf + tr->pos, tr->len - tr->pos);
            tr->len -= tr->pos;
            tr->pos = 0;
        }
        int rc = rs_src_read(&tr->src, tr->own_buf + tr->len, tr->cap - tr->len, &n, err);
        if (rc)
            return rs_err_prefix(err, "%s:%llu", tr->path, (unsigned long long)tr->line);
        if (n == 0)
            tr->eof = 1;
        tr->len += n;
    }
    return 0;
}

int rs_trace_fail(rs_trace *tr, rs_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rs_vfail_at(err, tr->path, tr->line, fmt, ap);
    va_end(ap);
    return rc;
}

/* A trace over src with its buffer, nothing read yet (src is taken over). */
static int trace_new(rs_trace **r_tr, rs_src *src, const char *name, size_t buf_bytes, int map_files,
                     rs_err *err)
{
    rs_trace *tr = calloc(1, sizeof *tr);

    if (buf_bytes == 0)
        buf_bytes = RS_TRACE_BUF_BYTES;
    if (buf_bytes < RS_TRACE_BUF_MIN_BYTES)
        buf_bytes = RS_TRACE_BUF_MIN_BYTES;
    if (!tr) {
        rs_src_close(src);
        return rs_fail(err, RS_ENOMEM, "out of memory opening '%s'", name);
    }
    tr->src = *src;
    tr->line = 1;
    tr->cap = buf_bytes;
    tr->path = strdup(name);
    /* a plain memory block (or a mapped plain file) is decoded where it
     * lies, through a window of cap bytes moving over it; anything else
     * through the buffer */
    const uint8_t *view;
    int rc = tr->path ? rs_src_view(&tr->src, map_files, &view, &tr->view_len, err) : 0;
    if (rc < 0) {
        rs_trace_close(tr);
        return rs_err_prefix(err, "%s", name);
    }
    if (rc == 1)
        tr->buf = view;
    else
        tr->buf = tr->own_buf = malloc(buf_bytes);
    if (!tr->buf || !tr->path) {
        rs_trace_close(tr);
        return rs_fail(err, RS_ENOMEM, "out of memory opening '%s'", name);
    }
    *r_tr = tr;
    return 0;
}

int rs_trace_open_src(rs_trace **r_tr, rs_src *src, const char *name, size_t buf_bytes,
                      rs_err *err)
{
    return rs_trace_open_src_map(r_tr, src, name, buf_bytes, 0, err);
}

int rs_trace_open_src_map(rs_trace **r_tr, rs_src *src, const char *name, size_t buf_bytes,
                          int map_files, rs_err *err)
{
    rs_trace *tr;
    int rc;

    if ((rc = trace_new(&tr, src, name, buf_bytes, map_files, err)))
        return rc;
    if ((rc = rs_trace_fill(tr, 8, err))) {
        rs_trace_close(tr);
        return rc;
    }
    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c && !tr->fmt; c++)
        if ((*c)->sniff && (*c)->sniff(tr->buf, tr->len))
            tr->fmt = *c;
    if (!tr->fmt) {
        rc = tr->len == 0
                 ? rs_trace_fail(tr, err, "empty file: not an rssim trace")
                 : rs_trace_fail(tr, err, "wrong header: not an rssim trace (expected "
                                          "'#rssim-trace' text or 'RSSIMTRC' binary)");
        rs_trace_close(tr);
        return rc;
    }
    if ((rc = tr->fmt->read_header(tr, err))) {
        rs_trace_close(tr);
        return rc;
    }
    rs_op_class_fill(tr->daemon_id, tr->op_class);
    tr->nops = rs_op_entries(tr->ops);
    tr->next = tr->fmt->next;
    tr->next_many = tr->fmt->next_many;
    *r_tr = tr;
    return 0;
}

/* A foreign trace over src: the codec format names opens it with its spec. */
static int open_foreign_src(rs_trace **r_tr, rs_src *src, const char *name, const char *format,
                            rs_err *err)
{
    const char *colon = strchr(format, ':');
    size_t n = colon ? (size_t)(colon - format) : strlen(format);
    const rs_trace_codec_ops *fmt = NULL;
    char known[160];
    rs_trace *tr;
    int rc;

    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c && !fmt; c++)
        if ((*c)->open_foreign && strlen((*c)->name) == n && !strncmp((*c)->name, format, n))
            fmt = *c;
    if (!fmt) {
        rs_src_close(src);
        return rs_fail(err, RS_EINPUT, "unknown foreign trace format '%.*s' (known: %s)", (int)n,
                       format, rs_trace_codec_names('f', known, sizeof known));
    }
    if ((rc = trace_new(&tr, src, name, RS_TRACE_BUF_BYTES, 0, err)))
        return rc;
    tr->fmt = fmt;
    if ((rc = fmt->open_foreign(tr, colon ? colon + 1 : "", err))) {
        rs_trace_close(tr);
        return rc;
    }
    rs_op_class_fill(tr->daemon_id, tr->op_class);
    tr->nops = rs_op_entries(tr->ops);
    *r_tr = tr;
    return 0;
}

int rs_trace_open_foreign(rs_trace **r_tr, const char *path, const char *format, rs_err *err)
{
    rs_src src;
    int rc = rs_src_open_file(&src, path, err);
    if (rc)
        return rc;
    return open_foreign_src(r_tr, &src, path, format, err);
}

int rs_trace_open_foreign_mem(rs_trace **r_tr, const void *data, size_t len, const char *name,
                              const char *format, rs_err *err)
{
    rs_src src;
    int rc = rs_src_open_mem(&src, data, len, err);
    if (rc)
        return rs_err_prefix(err, "%s", name);
    return open_foreign_src(r_tr, &src, name, format, err);
}

int rs_trace_open(rs_trace **r_tr, const char *path, rs_err *err)
{
    rs_src src;
    int rc = rs_src_open_file(&src, path, err);
    if (rc)
        return rc;
    return rs_trace_open_src(r_tr, &src, path, RS_TRACE_BUF_BYTES, err);
}

int rs_trace_open_mapped(rs_trace **r_tr, const char *path, rs_err *err)
{
    rs_src src;
    int rc = rs_src_open_file(&src, path, err);
    if (rc)
        return rc;
    return rs_trace_open_src_map(r_tr, &src, path, RS_TRACE_BUF_BYTES, 1, err);
}

int rs_trace_cheap_decode(const rs_trace *tr)
{
    return tr->fmt->numbered_records && (!tr->own_buf || strcmp(tr->src.ops->name, "none") == 0);
}

int rs_trace_open_mem(rs_trace **r_tr, const void *data, size_t len, const char *name,
                      size_t buf_bytes, rs_err *err)
{
    rs_src src;
    int rc = rs_src_open_mem(&src, data, len, err);
    if (rc)
        return rs_err_prefix(err, "%s", name);
    return rs_trace_open_src(r_tr, &src, name, buf_bytes, err);
}

/* A read's result rc: read in place from a file, at the end or on an
 * error, make sure the file did not change under the reader (an error then
 * says so, not what the changed bytes looked like). */
static inline int read_end(rs_trace *tr, int rc, rs_err *err)
{
    if (RS_UNLIKELY(rc <= 0) && !tr->own_buf && rs_src_view_check(&tr->src, err))
        return rs_err_prefix(err, "%s:%llu", tr->path, (unsigned long long)tr->line);
    return rc;
}

int rs_trace_next(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    return read_end(tr, tr->next(tr, r_rec, err), err);
}

int rs_trace_next_many(rs_trace *tr, rs_rec *r_recs, uint64_t *r_lines, size_t n,
                       size_t *r_count, rs_err *err)
{
    size_t i = 0;
    int rc = 1;
    if (tr->next_many) {
        rc = tr->next_many(tr, r_recs, r_lines, n, &i, err);
    } else {
        for (; i < n && (rc = tr->next(tr, &r_recs[i], err)) == 1; i++)
            r_lines[i] = rs_trace_line(tr);
    }
    *r_count = i;
    return read_end(tr, rc, err);
}

const char *rs_trace_path(const rs_trace *tr)
{
    return tr->path;
}

uint64_t rs_trace_line(const rs_trace *tr)
{
    /* tr->line is where the next record will be looked for */
    return tr->line > 1 ? tr->line - 1 : 1;
}

const char *rs_trace_daemon(const rs_trace *tr)
{
    return rs_trace_daemon_name(tr->daemon_id);
}

const char *rs_trace_format(const rs_trace *tr)
{
    return tr->fmt->name;
}

int rs_trace_numbered_records(const rs_trace *tr)
{
    return tr->fmt->numbered_records;
}

const char *rs_trace_compression(const rs_trace *tr)
{
    return tr->src.ops->name;
}

void rs_trace_close(rs_trace *tr)
{
    if (!tr)
        return;
    rs_src_close(&tr->src);
    if (tr->imp_free)
        tr->imp_free(tr->imp);
    free(tr->own_buf);
    free(tr->path);
    free(tr);
}

/* ---- writer ------------------------------------------------------------ */

static void writer_free(rs_trace_writer *w)
{
    rs_sink_close(&w->sink);
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp_path)
        unlink(w->tmp_path);
    free(w->buf);
    free(w->path);
    free(w->tmp_path);
    free(w);
}

int rs_trace_writer_open(rs_trace_writer **r_w, const char *path, const char *format,
                         const char *daemon, rs_err *err)
{
    const rs_trace_codec_ops *fmt = rs_trace_codec_find(format);
    int daemon_id = rs_trace_daemon_id(daemon);
    rs_trace_writer *w;
    size_t n = strlen(path);
    char known[128];
    int rc;

    if (!fmt || !fmt->encode)
        return rs_fail(err, RS_EINPUT, "%s trace format '%s' (known: %s)",
                       fmt ? "cannot write the import-only" : "unknown", format,
                       rs_trace_codec_names('w', known, sizeof known));
    if (daemon_id < 1)
        return rs_fail(err, RS_EINPUT, "unknown daemon kind '%s' (known: kv, alloc, mds, osd)",
                       daemon);
    if (!(w = calloc(1, sizeof *w)))
        return rs_fail(err, RS_ENOMEM, "out of memory writing '%s'", path);
    w->fd = -1;
    w->fmt = fmt;
    w->daemon_id = (unsigned)daemon_id;
    w->cap = RS_TRACE_BUF_BYTES;
    w->buf = malloc(w->cap);
    w->path = strdup(path);
    if (!w->buf || !w->path || !(w->tmp_path = malloc(n + 5))) {
        writer_free(w);
        return rs_fail(err, RS_ENOMEM, "out of memory writing '%s'", path);
    }
    memcpy(w->tmp_path, path, n);
    memcpy(w->tmp_path + n, ".tmp", 5);
    w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (w->fd < 0) {
        rc = rs_fail(err, errno == ENOENT || errno == ENOTDIR ? RS_EINPUT : RS_EIO, "cannot create '%s': %s", w->tmp_path, strerror(errno));
        free(w->tmp_path); /* not ours to unlink */
        w->tmp_path = NULL;
        writer_free(w);
        return rc;
    }
    if ((rc = rs_sink_open(&w->sink, rs_sink_for_name(path), w->fd, err))) {
        writer_free(w);
        return rc;
    }
    rs_op_class_fill(w->daemon_id, w->op_class);
    fmt->write_header(w);
    *r_w = w;
    return 0;
}

void rs_trace_writer_limit(rs_trace_writer *w, uint64_t max_records, const char *how)
{
    w->max_records = max_records;
    snprintf(w->limit_how, sizeof w->limit_how, "%s", how ? how : "the writer's limit");
}

static int writer_drain(rs_trace_writer *w, rs_err *err)
{
    int rc = rs_sink_write(&w->sink, w->buf, w->len, err);
    w->len = 0;
    return rc ? rs_err_prefix(err, "%s", w->path) : 0;
}

int rs_trace_write(rs_trace_writer *w, const rs_rec *rec, rs_err *err)
{
    int fault = rs_rec_fault(w->op_class, w->prev_t_ns, rec);
    if (RS_UNLIKELY(fault)) {
        char where[512];
        snprintf(where, sizeof where, "%s: record %llu", w->path,
                 (unsigned long long)w->records + 1);
        return rs_rec_fail(err, where, fault, w->prev_t_ns, rec, w->daemon_id);
    }
    if (RS_UNLIKELY(w->max_records && w->records >= w->max_records))
        return rs_fail(err, RS_EINPUT, "%s: record %llu: more than %llu records (%s)", w->path,
                       (unsigned long long)w->records + 1, (unsigned long long)w->max_records,
                       w->limit_how);
    if (RS_UNLIKELY(w->cap - w->len < w->fmt->rec_max_bytes)) {
        int rc = writer_drain(w, err);
        if (rc)
            return rc;
    }
    w->fmt->encode(w, rec);
    w->prev_t_ns = rec->t_ns;
    w->records++;
    return 0;
}

int rs_trace_writer_close(rs_trace_writer *w, rs_err *err)
{
    int rc;

    if ((rc = writer_drain(w, err)) == 0 && (rc = rs_sink_finish(&w->sink, err)) != 0)
        rs_err_prefix(err, "%s", w->path);
    if (rc) {
        writer_free(w);
        return rc;
    }
    rs_sink_close(&w->sink);
    if (close(w->fd) != 0) {
        w->fd = -1;
        rc = rs_fail(err, RS_EIO, "cannot write '%s': %s", w->tmp_path, strerror(errno));
        writer_free(w);
        return rc;
    }
    w->fd = -1;
    if (rename(w->tmp_path, w->path) != 0) {
        rc = rs_fail(err, RS_EIO, "cannot rename '%s' to '%s': %s", w->tmp_path, w->path,
                     strerror(errno));
        writer_free(w);
        return rc;
    }
    free(w->tmp_path);
    w->tmp_path = NULL;
    writer_free(w);
    return 0;
}

void rs_trace_writer_abort(rs_trace_writer *w)
{
    if (w)
        writer_free(w);
}

/* ---- summary ------------------------------------------------------------ */

/* Open-addressing hash set of keys with their last nonzero size. */
typedef struct keyset {
    uint64_t *keys;  /* KEY_EMPTY marks a free slot */
    uint64_t *sizes;
    size_t cap, n;   /* cap is a power of two; n <= cap / 2 */
    int has_empty_key;
    uint64_t empty_key_size;
} keyset;

#define KEY_EMPTY UINT64_MAX

static int keyset_grow(keyset *ks)
{
    size_t cap = ks->cap ? 2 * ks->cap : 1024;
    uint64_t *keys = malloc(cap * sizeof *keys), *sizes = malloc(cap * sizeof *sizes);

    if (!keys || !sizes) {
        free(keys);
        free(sizes);
        return -1;
    }
    memset(keys, 0xff, cap * sizeof *keys);
    for (size_t i = 0; i < ks->cap; i++) {
        if (ks->keys[i] == KEY_EMPTY)
            continue;
        size_t j = rs_hash64(ks->keys[i]) & (cap - 1);
        while (keys[j] != KEY_EMPTY)
            j = (j + 1) & (cap - 1);
        keys[j] = ks->keys[i];
        sizes[j] = ks->sizes[i];
    }
    free(ks->keys);
    free(ks->sizes);
    ks->keys = keys;
    ks->sizes = sizes;
    ks->cap = cap;
    return 0;
}

static int keyset_put(keyset *ks, uint64_t key, uint64_t size_bytes)
{
    if (key == KEY_EMPTY) {
        ks->has_empty_key = 1;
        if (size_bytes)
            ks->empty_key_size = size_bytes;
        return 0;
    }
    if (2 * (ks->n + 1) > ks->cap && keyset_grow(ks))
        return -1;
    size_t j = rs_hash64(key) & (ks->cap - 1);
    while (ks->keys[j] != KEY_EMPTY && ks->keys[j] != key)
        j = (j + 1) & (ks->cap - 1);
    if (ks->keys[j] == KEY_EMPTY) {
        ks->keys[j] = key;
        ks->sizes[j] = 0;
        ks->n++;
    }
    if (size_bytes)
        ks->sizes[j] = size_bytes;
    return 0;
}

int rs_trace_summarize_from(rs_trace *tr, rs_trace_summary *r_sum, rs_err *err)
{
    keyset ks = { 0 };
    rs_rec rec;
    int rc;

    memset(r_sum, 0, sizeof *r_sum);
    while ((rc = rs_trace_next(tr, &rec, err)) == 1) {
        if (r_sum->records == 0)
            r_sum->t_first_ns = rec.t_ns;
        r_sum->t_last_ns = rec.t_ns;
        r_sum->records++;
        r_sum->op_count[rec.op]++;
        r_sum->bytes_total += rec.size_bytes;
        if (keyset_put(&ks, rec.key, rec.size_bytes)) {
            rc = rs_fail(err, RS_ENOMEM, "out of memory counting the keys of '%s'", tr->path);
            break;
        }
    }
    if (rc == 0) {
        r_sum->distinct_keys = ks.n + (uint64_t)ks.has_empty_key;
        r_sum->bytes_distinct = ks.has_empty_key ? ks.empty_key_size : 0;
        for (size_t i = 0; i < ks.cap; i++)
            if (ks.keys[i] != KEY_EMPTY)
                r_sum->bytes_distinct += ks.sizes[i];
    }
    free(ks.keys);
    free(ks.sizes);
    return rc;
}

int rs_trace_summarize(const char *path, rs_trace_summary *r_sum, rs_err *err)
{
    rs_trace *tr;
    int rc = rs_trace_open(&tr, path, err);
    if (rc)
        return rc;
    rc = rs_trace_summarize_from(tr, r_sum, err);
    rs_trace_close(tr);
    return rc;
}

/* ---- SHA-256 ------------------------------------------------------------
 * OpenSSL's libcrypto (EVP): it uses the CPU's SHA extensions where there
 * are any (about 1.1 GB/s here, against 0.1 GB/s for a portable C loop), and
 * a replay hashes its whole trace before it starts. */

int rs_file_sha256(const char *path, char r_hex[65], rs_err *err)
{
    static const char hex[] = "0123456789abcdef";
    enum { CHUNK = 1 << 20 };
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int dlen = 0;
    uint8_t *buf = malloc(CHUNK);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = 0;

    if (!buf || !ctx) {
        rc = rs_fail(err, RS_ENOMEM, "out of memory hashing '%s'", path);
        goto out;
    }
    if (fd < 0) {
        rc = rs_fail(err, errno == ENOENT || errno == ENOTDIR ? RS_EINPUT : RS_EIO,
                     "cannot open '%s': %s", path, strerror(errno));
        goto out;
    }
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        rc = rs_fail(err, RS_EINTERNAL, "cannot start SHA-256 (libcrypto)");
        goto out;
    }
    for (;;) {
        ssize_t got = read(fd, buf, CHUNK);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = rs_fail(err, RS_EIO, "cannot read '%s': %s", path, strerror(errno));
            goto out;
        }
        if (got == 0)
            break;
        if (EVP_DigestUpdate(ctx, buf, (size_t)got) != 1) {
            rc = rs_fail(err, RS_EINTERNAL, "SHA-256 of '%s' failed (libcrypto)", path);
            goto out;
        }
    }
    if (EVP_DigestFinal_ex(ctx, d, &dlen) != 1 || dlen != 32) {
        rc = rs_fail(err, RS_EINTERNAL, "SHA-256 of '%s' failed (libcrypto)", path);
        goto out;
    }
    for (int i = 0; i < 32; i++) {
        r_hex[2 * i] = hex[d[i] >> 4];
        r_hex[2 * i + 1] = hex[d[i] & 15];
    }
    r_hex[64] = '\0';
out:
    if (fd >= 0)
        close(fd);
    EVP_MD_CTX_free(ctx);
    free(buf);
    return rc;
}
