/*
 * import_block.c — MSR-Cambridge CSV and `start_block nblocks` lists read
 * line by line (zlib's gzgets: plain or gzip, streaming, one 4 KiB line
 * buffer) and written as osd records (see import_block.h for the formats).
 *
 * Each input format is a line parser in a small table; the loop around them
 * owns the file, the line numbers, the splitting into objects and the
 * counts.  A parser checks a line in this order: field count, then the
 * fields left to right (numbers: numeric, in range, not negative; the op
 * name; lengths not zero), then the time order, so one bad line always gives
 * the same message.
 */
#include "import_block.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "foreign.h"
#include "format.h"
#include "osd_io.h"

#define LINE_CAP 4096
#define MAX_FIELDS 8
#define OFFSET_MAX ((uint64_t)1 << 63) /* offset + length stay below this */

typedef rs_import_io io_line;

/* What the importers' line parsers share: the options, the position. */
typedef struct rs_import_reader {
    const rs_import_opts *opts;
    const char *path;
    uint64_t line;       /* the line being parsed, 1-based */
    uint64_t ios;        /* I/Os accepted so far */
    uint64_t first_ts, prev_ts; /* msr: the first and the last Timestamp */
} reader;

static int line_fail(const reader *rd, rs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int line_fail(const reader *rd, rs_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rs_vfail_at(err, rd->path, rd->line, fmt, ap);
    va_end(ap);
    return rc;
}

/* A decimal integer with an optional sign into *r_v: the field's value must
 * be numeric, fit in int64 and, unless may_be_negative, not be negative. */
static int num_field(const reader *rd, const char *name, const char *s, int may_be_negative,
                     int64_t *r_v, rs_err *err)
{
    char q[64 * 4];
    const char *p = s + (*s == '-' || *s == '+');
    uint64_t v = 0;

    if (!*p)
        return line_fail(rd, err, "non-numeric %s '%s'", name, rs_quote(q, sizeof q, s, strlen(s)));
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return line_fail(rd, err, "non-numeric %s '%s'", name,
                             rs_quote(q, sizeof q, s, strlen(s)));
        if (v > ((uint64_t)INT64_MAX - (uint64_t)(*p - '0')) / 10)
            return line_fail(rd, err, "%s '%s' out of range (max %lld)", name,
                             rs_quote(q, sizeof q, s, strlen(s)), (long long)INT64_MAX);
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (*s == '-' && v > 0 && !may_be_negative)
        return line_fail(rd, err, "negative %s '%s'", name, rs_quote(q, sizeof q, s, strlen(s)));
    *r_v = *s == '-' ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* Read or Write (msr), R or W (blocks), any case. */
static int op_field(const reader *rd, const char *s, rs_op *r_op, rs_err *err)
{
    char q[64 * 4];

    if (!strcasecmp(s, "Read") || !strcasecmp(s, "R"))
        *r_op = RS_OP_READ;
    else if (!strcasecmp(s, "Write") || !strcasecmp(s, "W"))
        *r_op = RS_OP_WRITE;
    else
        return line_fail(rd, err, "unknown op '%s' (expected Read or Write, R or W)",
                         rs_quote(q, sizeof q, s, strlen(s)));
    return 0;
}

/* Split s at any of seps into at most MAX_FIELDS trimmed fields; returns
 * the field count (MAX_FIELDS + 1 when there are more).  Blank-separated
 * input (seps " \t") skips runs of blanks. */
static int split(char *s, const char *seps, char **f)
{
    int n = 0, blanks = strchr(seps, ',') == NULL;

    for (;;) {
        if (blanks)
            s += strspn(s, seps);
        if (blanks && !*s)
            return n;
        char *end = s + strcspn(s, seps);
        char sep = *end;
        *end = '\0';
        if (n == MAX_FIELDS)
            return MAX_FIELDS + 1;
        f[n++] = rs_foreign_trim(s);
        if (!sep)
            return n;
        s = end + 1;
    }
}

/* offset + length must stay below 2^63. */
static int range_check(const reader *rd, uint64_t off_bytes, uint64_t len_bytes, rs_err *err)
{
    if (off_bytes >= OFFSET_MAX || len_bytes > OFFSET_MAX - off_bytes)
        return line_fail(rd, err, "offset %llu + length %llu passes 2^63 bytes",
                         (unsigned long long)off_bytes, (unsigned long long)len_bytes);
    return 0;
}

/* One I/O becomes one record per RADOS object it touches: at most
 * RS_IMPORT_MAX_RECORDS_PER_IO (import_block.h), checked before any is
 * written, so one line cannot write without bound. */
static int expand_check(const reader *rd, const char *field, uint64_t off_bytes, uint64_t len_bytes,
                        rs_err *err)
{
    uint64_t obj = rd->opts->object_bytes;
    uint64_t pieces = (off_bytes % obj + len_bytes - 1) / obj + 1; /* < 2^32 + 2^63: no wrap */
    if (pieces > RS_IMPORT_MAX_RECORDS_PER_IO)
        return line_fail(rd, err, "%s: %llu bytes at offset %llu touch %llu objects of %llu bytes, "
                         "more than %llu records per line (a larger --object-size splits it less)",
                         field, (unsigned long long)len_bytes, (unsigned long long)off_bytes,
                         (unsigned long long)pieces, (unsigned long long)obj,
                         (unsigned long long)RS_IMPORT_MAX_RECORDS_PER_IO);
    return 0;
}

static int msr_parse(reader *rd, char *s, io_line *r_io, rs_err *err)
{
    static const char *const names[7] = { "Timestamp", "Hostname", "DiskNumber", "Type",
                                          "Offset", "Size", "ResponseTime" };
    char *f[MAX_FIELDS];
    int64_t ts, disk, off, len, resp;
    int n, rc;

    if (rd->line == 1 && !strncasecmp(rs_foreign_trim(s), "Timestamp", 9))
        return 0; /* a header line */
    if ((n = split(s, ",", f)) != 7)
        return line_fail(rd, err, "wrong field count: %d%s fields, expected 7 (%s,%s,%s,%s,%s,%s,%s)",
                         n > MAX_FIELDS ? MAX_FIELDS : n, n > MAX_FIELDS ? "+" : "", names[0],
                         names[1], names[2], names[3], names[4], names[5], names[6]);
    if ((rc = num_field(rd, names[0], f[0], 0, &ts, err)) ||
        (rc = num_field(rd, names[2], f[2], 1, &disk, err)) ||
        (rc = op_field(rd, f[3], &r_io->op, err)) ||
        (rc = num_field(rd, names[4], f[4], 0, &off, err)) ||
        (rc = num_field(rd, names[5], f[5], 0, &len, err)) ||
        (rc = num_field(rd, names[6], f[6], 1, &resp, err)))
        return rc;
    if (len == 0)
        return line_fail(rd, err, "zero length: Size 0 (must be > 0)");
    if (rd->ios == 0)
        rd->first_ts = rd->prev_ts = (uint64_t)ts;
    if ((uint64_t)ts < rd->prev_ts)
        return line_fail(rd, err, "time goes backwards: Timestamp %lld after %llu (MSR traces are "
                         "time ordered)", (long long)ts, (unsigned long long)rd->prev_ts);
    rd->prev_ts = (uint64_t)ts;
    if ((uint64_t)ts - rd->first_ts > UINT64_MAX / 100)
        return line_fail(rd, err, "Timestamp %lld is more than 2^64 ns after the first",
                         (long long)ts);
    r_io->t_ns = ((uint64_t)ts - rd->first_ts) * 100; /* filetime ticks are 100 ns */
    r_io->off_bytes = (uint64_t)off;
    r_io->len_bytes = (uint64_t)len;
    return range_check(rd, r_io->off_bytes, r_io->len_bytes, err) ||
                   expand_check(rd, names[5], r_io->off_bytes, r_io->len_bytes, err)
               ? RS_EINPUT : 1;
}

static int blocks_parse(reader *rd, char *s, io_line *r_io, rs_err *err)
{
    uint64_t bs = rd->opts->block_bytes;
    char *f[MAX_FIELDS];
    int64_t start, count;
    int n, rc;

    if ((n = split(s, " \t", f)) != 2 && n != 3)
        return line_fail(rd, err, "wrong field count: %d%s field%s, expected 2 (start_block "
                         "nblocks) or 3 (start_block nblocks R|W)",
                         n > MAX_FIELDS ? MAX_FIELDS : n, n > MAX_FIELDS ? "+" : "",
                         n == 1 ? "" : "s");
    if ((rc = num_field(rd, "start_block", f[0], 0, &start, err)) ||
        (rc = num_field(rd, "nblocks", f[1], 0, &count, err)))
        return rc;
    r_io->op = RS_OP_READ;
    if (n == 3 && (rc = op_field(rd, f[2], &r_io->op, err)))
        return rc;
    if (count == 0)
        return line_fail(rd, err, "zero length: nblocks 0 (must be > 0)");
    if ((uint64_t)start > OFFSET_MAX / bs || (uint64_t)count > OFFSET_MAX / bs)
        return line_fail(rd, err, "start_block %lld + nblocks %lld of %llu bytes pass 2^63 bytes",
                         (long long)start, (long long)count, (unsigned long long)bs);
    r_io->off_bytes = (uint64_t)start * bs;
    r_io->len_bytes = (uint64_t)count * bs;
    if (rd->opts->interval_ns && rd->ios > UINT64_MAX / rd->opts->interval_ns)
        return line_fail(rd, err, "I/O %llu at the interval passes 2^64 ns",
                         (unsigned long long)rd->ios + 1);
    r_io->t_ns = rd->ios * rd->opts->interval_ns;
    return range_check(rd, r_io->off_bytes, r_io->len_bytes, err) ||
                   expand_check(rd, "nblocks", r_io->off_bytes, r_io->len_bytes, err)
               ? RS_EINPUT : 1;
}

/* ---- read as foreign traces (rs_trace_open_foreign): osd or kv ---------
 *
 * The same line parsers, over the trace reader's buffer (plain, gzip or
 * zstd).  An I/O becomes, as `rssim trace import` writes it, one osd
 * record per RADOS object it touches (to=osd), or one kv record per page of
 * object-size bytes it touches (to=kv: GET for a read, SET for a write,
 * key = page number, size_bytes = the page size). */

typedef struct block_state {
    rs_foreign f;
    rs_import_opts opts;
    reader rd;
    int kv;
    rs_import_io io; /* the I/O being split: io.off_bytes/len_bytes what is left */
} block_state;

static int block_next(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    block_state *st = tr->imp;
    uint64_t obj = st->opts.object_bytes;
    int rc;

    while (st->io.len_bytes == 0) {
        if ((rc = rs_foreign_line(tr, &st->f, err)) < 0)
            return rc;
        if (rc == 0)
            return st->rd.ios ? 0
                              : rs_fail(err, RS_EINPUT, "%s:%llu: no I/O in the file", tr->path,
                                        (unsigned long long)st->f.lineno + (st->f.lineno == 0));
        char *s = rs_foreign_trim(st->f.line);
        if (!*s || *s == '#')
            continue;
        st->rd.line = st->f.lineno;
        if ((rc = tr->fmt->import_line(&st->rd, s, &st->io, err)) < 0)
            return rc;
        if (rc == 1)
            st->rd.ios++;
    }
    uint64_t in_obj = st->io.off_bytes % obj, piece = obj - in_obj;
    if (piece > st->io.len_bytes)
        piece = st->io.len_bytes;
    if (st->kv)
        *r_rec = (rs_rec){ .t_ns = st->io.t_ns, .key = st->io.off_bytes / obj, .size_bytes = obj,
                           .op = st->io.op == RS_OP_READ ? RS_OP_GET : RS_OP_SET };
    else
        *r_rec = (rs_rec){ .t_ns = st->io.t_ns, .key = st->io.off_bytes / obj, .size_bytes = piece,
                           .aux = (uint32_t)in_obj, .op = (uint8_t)st->io.op };
    st->io.off_bytes += piece;
    st->io.len_bytes -= piece;
    return rs_foreign_emit(tr, &st->f, r_rec, err);
}

static int block_open(rs_trace *tr, const char *text, rs_err *err)
{
    static const char *const msr_known[] = { "to", "object-size", NULL };
    static const char *const blocks_known[] = { "to", "object-size", "block-size", "interval", NULL };
    static const char *const to[] = { "osd", "kv", NULL };
    int is_blocks = tr->fmt == &rs_trace_codec_blocks, ti, rc;
    rs_spec spec;
    block_state *st = calloc(1, sizeof *st);

    if (!st)
        return rs_fail(err, RS_ENOMEM, "out of memory");
    tr->imp = st;
    tr->imp_free = free;
    tr->next = block_next;
    if ((rc = rs_spec_parse(&spec, tr->fmt->name, text, is_blocks ? blocks_known : msr_known, err)) ||
        (rc = rs_spec_choice(&spec, "to", to, 0, &ti, err)))
        return rc;
    st->kv = ti == 1;
    tr->daemon_id = st->kv ? RS_DAEMON_KV : RS_DAEMON_OSD;
    /* kv: a page (a value is below 4 GiB); osd: a RADOS object (as the import's --object-size) */
    if ((rc = rs_spec_size(&spec, "object-size", st->kv ? 4096 : 4u << 20, 1,
                           st->kv ? RS_REC_VALUE_MAX_BYTES : (uint64_t)1 << 32,
                           &st->opts.object_bytes, err)) ||
        (rc = rs_spec_size(&spec, "block-size", 512, 1, (uint64_t)1 << 32, &st->opts.block_bytes,
                           err)) ||
        (rc = rs_spec_duration(&spec, "interval", 0, &st->opts.interval_ns, err)))
        return rc;
    st->opts.from = tr->fmt->name;
    st->rd = (reader){ .opts = &st->opts, .path = tr->path };
    return 0;
}

const rs_trace_codec_ops rs_trace_codec_msr = {
    .name = "msr",
    .doc = "import, or foreign as osd or kv (to=): MSR-Cambridge CSV (Timestamp in 100 ns, "
           "Hostname, DiskNumber, Read|Write, Offset, Size, ResponseTime), times relative to the "
           "first line",
    .import_line = msr_parse,
    .open_foreign = block_open,
    .example_spec = "",
    .example = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n"
               "128166372003061629,web,1,Read,3221225472,8192,1331\n"
               "128166372013061629,web,1,Write,4096,4194304,20\n",
};

const rs_trace_codec_ops rs_trace_codec_blocks = {
    .name = "blocks",
    .doc = "import, or foreign as osd or kv (to=): 'start_block nblocks [R|W]' lines "
           "(default R) of --block-size blocks, line i at i x --interval (0: all at t 0)",
    .import_line = blocks_parse,
    .import_opts = RS_IMPORT_OPT_BLOCK_SIZE | RS_IMPORT_OPT_INTERVAL,
    .open_foreign = block_open,
    .example_spec = "",
    .example = "# start nblocks op\n0 8\n16384 16 W\n8 8 R\n",
};

/* At the end of the data, or of a line without a line end: a clean end, or
 * a read or decompression error found while reading line `line`.  zlib
 * hands out what it decoded before a truncation, so a cut-off last line
 * is reported as the truncation, not parsed. */
static int end_check(gzFile gz, const reader *rd, uint64_t line, rs_err *err)
{
    int zerr = Z_OK;
    const char *msg = gzerror(gz, &zerr);

    if (zerr == Z_OK || zerr == Z_STREAM_END)
        return 0;
    if (zerr == Z_ERRNO)
        return rs_fail(err, RS_EIO, "%s:%llu: read error: %s", rd->path,
                       (unsigned long long)line, strerror(errno));
    return rs_fail(err, RS_EINPUT, "%s:%llu: corrupt or truncated gzip stream: %s", rd->path,
                   (unsigned long long)line, msg);
}

int rs_import_block(const char *in_path, const rs_import_opts *opts, rs_trace_writer *w,
                    rs_import_stats *r_stats, rs_err *err)
{
    const rs_trace_codec_ops *fmt = rs_trace_codec_find(opts->from);
    reader rd = { .opts = opts, .path = in_path };
    char buf[LINE_CAP], known[128];
    gzFile gz;
    int rc = 0;

    memset(r_stats, 0, sizeof *r_stats);
    if (!fmt || !(fmt->import_line || fmt->import_file))
        return rs_fail(err, RS_EINPUT, "unknown trace format '%s' to import (known: %s)", opts->from,
                       rs_trace_codec_names('i', known, sizeof known));
    if (fmt->import_file)
        return fmt->import_file(in_path, opts, w, r_stats, err);
    if (opts->object_bytes < 1 || opts->object_bytes > ((uint64_t)1 << 32))
        return rs_fail(err, RS_EINPUT, "bad object size %llu: must be in 1 .. 4G",
                       (unsigned long long)opts->object_bytes);
    if (opts->block_bytes < 1)
        return rs_fail(err, RS_EINPUT, "bad block size 0: must be at least 1 byte");
    errno = 0;
    if (!(gz = gzopen(in_path, "rb")))
        return rs_fail(err, errno == ENOENT || errno == ENOTDIR ? RS_EINPUT : RS_EIO,
                       "cannot open '%s': %s", in_path, errno ? strerror(errno) : "out of memory");
    while (gzgets(gz, buf, sizeof buf)) {
        size_t n = strlen(buf);
        io_line io;

        rd.line++;
        if (n && buf[n - 1] == '\n') {
            buf[--n] = '\0';
        } else if ((rc = end_check(gz, &rd, rd.line, err))) {
            break;
        } else if (n == sizeof buf - 1 && !gzeof(gz)) {
            rc = line_fail(&rd, err, "line too long (more than %d bytes)", LINE_CAP - 1);
            break;
        }
        if (n && buf[n - 1] == '\r')
            buf[--n] = '\0';
        char *s = rs_foreign_trim(buf);
        if (!*s || *s == '#')
            continue;
        if ((rc = fmt->import_line(&rd, s, &io, err)) < 0)
            break;
        if (rc == 0)
            continue;
        if ((rc = rs_osd_io_write(w, io.t_ns, 0, io.op, io.off_bytes, io.len_bytes,
                                  opts->object_bytes, &r_stats->records, err))) {
            if (rc == RS_EINPUT) /* the writer's record limit: name the line */
                rs_err_prefix(err, "%s:%llu", in_path, (unsigned long long)rd.line);
            break;
        }
        rd.ios++;
        r_stats->reads += io.op == RS_OP_READ;
        r_stats->writes += io.op == RS_OP_WRITE;
    }
    if (!rc)
        rc = end_check(gz, &rd, rd.line + 1, err);
    if (!rc && rd.ios == 0)
        rc = rs_fail(err, RS_EINPUT, "%s:%llu: no I/O in the file", in_path,
                     (unsigned long long)rd.line + (rd.line == 0));
    gzclose(gz);
    r_stats->lines = rd.line;
    r_stats->ios = rd.ios;
    return rc;
}

const char *rs_import_daemon(const rs_trace_codec_ops *codec)
{
    return codec->import_daemon ? codec->import_daemon : "osd";
}
