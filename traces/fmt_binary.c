/*
 * fmt_binary.c — the binary trace encoding (v1); docs/trace-format.md §3.
 *
 * A 16-byte header ("RSSIMTRC", u32 version = 1, u32 daemon id) and then
 * 32-byte records: u64 t_ns, u64 key, u64 size_bytes, u32 aux, u16 thread,
 * u8 op, u8 flags, all little-endian.  That is struct rs_rec's layout on
 * x86_64: a little-endian host copies a record whole, any other decodes
 * it field by field with explicit byte order, so the format does not depend
 * on the host.  This decoder is the simulator's hot path: the engine reads
 * through bin_next_many, one loop over the buffered records (a copy and the
 * shared record check, format.h, each); the buffer is refilled only when
 * fewer than 32 unread bytes remain.
 */
#include <endian.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "format.h"

#define BIN_MAGIC "RSSIMTRC"
enum { BIN_HEADER_BYTES = 16, BIN_REC_BYTES = 32, BIN_VERSION = 1 };


static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return le64toh(v);
}

static inline uint32_t load32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return le32toh(v);
}

static inline uint16_t load16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, sizeof v);
    return le16toh(v);
}

static inline void store64(uint8_t *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, sizeof v);
}

static inline void store32(uint8_t *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, sizeof v);
}

static inline void store16(uint8_t *p, uint16_t v)
{
    v = htole16(v);
    memcpy(p, &v, sizeof v);
}

static int bin_sniff(const uint8_t *p, size_t n)
{
    return n >= 8 && memcmp(p, BIN_MAGIC, 8) == 0;
}

static int bin_read_header(rs_trace *tr, rs_err *err)
{
    int rc = rs_trace_fill(tr, BIN_HEADER_BYTES, err);
    if (rc)
        return rc;
    size_t have = tr->len - tr->pos;
    if (have < BIN_HEADER_BYTES)
        return rs_trace_fail(tr, err, "truncated header (%zu of %d bytes)", have, BIN_HEADER_BYTES);
    const uint8_t *p = tr->buf + tr->pos;
    uint32_t version = load32(p + 8), daemon = load32(p + 12);
    if (version != BIN_VERSION)
        return rs_trace_fail(tr, err, "unsupported version %u (this rssim reads version %d)",
                             version, BIN_VERSION);
    if (daemon == 0 || !rs_trace_daemon_name(daemon))
        return rs_trace_fail(tr, err, "unknown daemon id %u (known: 1 kv, 2 alloc, 3 mds, 4 osd)",
                             daemon);
    tr->daemon_id = daemon;
    tr->pos += BIN_HEADER_BYTES;
    tr->line = 2;
    return 0;
}

/* On a little-endian host a record's bytes are an rs_rec's (the asserts
 * check the layout), so one 32-byte copy decodes it, not seven loads and
 * stores; elsewhere field by field. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
_Static_assert(offsetof(rs_rec, t_ns) == 0 && offsetof(rs_rec, key) == 8 &&
               offsetof(rs_rec, size_bytes) == 16 && offsetof(rs_rec, aux) == 24 &&
               offsetof(rs_rec, thread) == 28 && offsetof(rs_rec, op) == 30 &&
               offsetof(rs_rec, flags) == 31 && sizeof(rs_rec) == BIN_REC_BYTES,
               "rs_rec is the binary record's layout");
static inline void decode(const uint8_t *p, rs_rec *r)
{
    memcpy(r, p, BIN_REC_BYTES);
}
#else
static inline void decode(const uint8_t *p, rs_rec *r)
{
    r->t_ns = load64(p);
    r->key = load64(p + 8);
    r->size_bytes = load64(p + 16);
    r->aux = load32(p + 24);
    r->thread = load16(p + 28);
    r->op = p[30];
    r->flags = p[31];
}
#endif

/* Rare path: fewer than 32 bytes buffered (refill) or a bad record. */
static int bin_next_slow(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    int rc = rs_trace_fill(tr, BIN_REC_BYTES, err);
    if (rc)
        return rc;
    size_t have = tr->len - tr->pos;
    if (have == 0)
        return 0;
    if (have < BIN_REC_BYTES)
        return rs_trace_fail(tr, err, "record %llu: truncated record (%zu of %d bytes)",
                             (unsigned long long)tr->line - 1, have, BIN_REC_BYTES);
    decode(tr->buf + tr->pos, r_rec);
    int fault = rs_rec_fault(tr->op_class, tr->prev_t_ns, r_rec);
    if (fault) {
        char where[1200];
        snprintf(where, sizeof where, "%s:%llu: record %llu", tr->path,
                 (unsigned long long)tr->line, (unsigned long long)tr->line - 1);
        return rs_rec_fail(err, where, fault, tr->prev_t_ns, r_rec, tr->daemon_id);
    }
    tr->pos += BIN_REC_BYTES;
    tr->prev_t_ns = r_rec->t_ns;
    tr->line++;
    return 1;
}

static int bin_next(rs_trace *tr, rs_rec *r_rec, rs_err *err)
{
    if (RS_LIKELY(tr->len - tr->pos >= BIN_REC_BYTES)) {
        /* the window was filled up to 1 MiB of records ago, and a replay's
         * tables have evicted it since: fetch a few records ahead (past the
         * window's end a prefetch is a no-op) */
        __builtin_prefetch(tr->buf + tr->pos + 8 * BIN_REC_BYTES);
        decode(tr->buf + tr->pos, r_rec);
        if (RS_LIKELY(rs_rec_fault(tr->op_class, tr->prev_t_ns, r_rec) == RS_REC_OK)) {
            tr->pos += BIN_REC_BYTES;
            tr->prev_t_ns = r_rec->t_ns;
            tr->line++;
            return 1;
        }
    }
    return bin_next_slow(tr, r_rec, err);
}

/* Records of the buffered window in one loop (no call, and the position,
 * time and line in registers); a refill or a bad record goes through
 * bin_next_slow, as bin_next's do. */
static int bin_next_many(rs_trace *tr, rs_rec *r_recs, uint64_t *r_lines, size_t n,
                         size_t *r_count, rs_err *err)
{
    size_t i = 0;
    int rc = 1;
    while (i < n) {
        size_t fit = (tr->len - tr->pos) / BIN_REC_BYTES, j = 0;
        if (fit > n - i)
            fit = n - i;
        const uint8_t *p = tr->buf + tr->pos;
        uint64_t prev_t_ns = tr->prev_t_ns, line = tr->line;
        for (; j < fit; j++, p += BIN_REC_BYTES) {
            rs_rec *r = &r_recs[i + j];
            __builtin_prefetch(p + 8 * BIN_REC_BYTES); /* as in bin_next */
            decode(p, r);
            if (RS_UNLIKELY(rs_rec_fault(tr->op_class, prev_t_ns, r) != RS_REC_OK))
                break;
            prev_t_ns = r->t_ns;
            r_lines[i + j] = line++;
        }
        tr->pos += j * BIN_REC_BYTES;
        tr->prev_t_ns = prev_t_ns;
        tr->line = line;
        i += j;
        if (i == n)
            break;
        /* fewer than 32 bytes buffered, or a bad record */
        if ((rc = bin_next_slow(tr, &r_recs[i], err)) != 1)
            break;
        r_lines[i++] = tr->line - 1;
    }
    *r_count = i;
    return rc;
}

static void bin_write_header(rs_trace_writer *w)
{
    uint8_t *p = w->buf + w->len;
    memcpy(p, BIN_MAGIC, 8);
    store32(p + 8, BIN_VERSION);
    store32(p + 12, w->daemon_id);
    w->len += BIN_HEADER_BYTES;
}

static void bin_encode(rs_trace_writer *w, const rs_rec *r)
{
    uint8_t *p = w->buf + w->len;
    store64(p, r->t_ns);
    store64(p + 8, r->key);
    store64(p + 16, r->size_bytes);
    store32(p + 24, r->aux);
    store16(p + 28, r->thread);
    p[30] = r->op;
    p[31] = r->flags;
    w->len += BIN_REC_BYTES;
}

const rs_trace_codec_ops rs_trace_codec_binary = {
    .name = "binary",
    .doc = "fixed 32-byte little-endian records after a 16-byte header; fastest to read",
    .rec_max_bytes = BIN_REC_BYTES,
    .sniff = bin_sniff,
    .read_header = bin_read_header,
    .numbered_records = 1,
    .next = bin_next,
    .next_many = bin_next_many,
    .write_header = bin_write_header,
    .encode = bin_encode,
};
