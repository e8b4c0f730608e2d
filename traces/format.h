/*
 * format.h — what the trace encodings share (internal to traces/).
 *
 * A trace encoding (text, binary) is an rs_trace_codec_ops (trace.h): it recognises its
 * stream from the first bytes, reads its header and then one record at a
 * time from the reader's buffer, and encodes a header and records into the
 * writer's buffer.  The reader (rs_trace) owns one bounded buffer
 * (RS_TRACE_BUF_BYTES) filled from a byte source (stream.h); the writer
 * (rs_trace_writer) owns one buffer drained into a sink.  Record rules that
 * do not depend on the encoding (op known and allowed for the daemon kind,
 * size > 0 where the op needs one, time non-decreasing, flags 0) live here
 * once, as a per-daemon op class table and an inline check, so the reader,
 * the writer and both encodings apply exactly the same rules.
 *
 * Line numbers: `line` is the line being read — the header is line 1; in
 * binary, record N (1-based) is line N + 1.  Every input error is
 * "PATH:LINE: what" (binary: "PATH:LINE: record N: what").
 */
#ifndef RS_TRACE_FORMAT_H
#define RS_TRACE_FORMAT_H

#include <stdint.h>

#include "stream.h"
#include "trace.h"

#ifndef RS_TRACE_BUF_BYTES /* the fuzz build sets a smaller one (CMakeLists.txt) */
#define RS_TRACE_BUF_BYTES ((size_t)1 << 20) /* reader and writer buffer */
#endif
#define RS_TRACE_BUF_MIN_BYTES ((size_t)64)  /* smallest reader buffer (tests) */

#define RS_LIKELY(x) __builtin_expect(!!(x), 1)
#define RS_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Daemon ids (binary header): part of the format, never renumber. */
enum { RS_DAEMON_KV = 1, RS_DAEMON_ALLOC = 2, RS_DAEMON_MDS = 3, RS_DAEMON_OSD = 4,
       RS_DAEMON__COUNT = 5 };

/* What an op code means in a trace of one daemon kind. */
enum {
    RS_OPC_UNKNOWN = 0, /* no such op */
    RS_OPC_FOREIGN = 1, /* an op of another daemon kind */
    RS_OPC_ANY_SIZE = 2,  /* allowed; size_bytes may be 0 */
    RS_OPC_SIZED = 3,   /* allowed; size_bytes must be > 0 */
    RS_OPC_VALUE = 4,   /* allowed; 1 <= size_bytes <= RS_REC_VALUE_MAX_BYTES (kv values) */
    RS_OPC_MALLOC = 5,  /* allowed; 1 <= size_bytes <= RS_REC_MALLOC_MAX_BYTES */
};

/* The sizes each class allows: size_bytes - rs_opc_size_min[c] <= rs_opc_size_span[c]
 * (one unsigned compare; 0 - 1 wraps past every span but ANY_SIZE's). */
static const uint64_t rs_opc_size_min[] = { 0, 0, 0, 1, 1, 1 };
static const uint64_t rs_opc_size_span[] = { 0, 0, UINT64_MAX, UINT64_MAX - 1,
                                             RS_REC_VALUE_MAX_BYTES - 1, RS_REC_MALLOC_MAX_BYTES - 1 };

/* Why a record breaks the rules (0 = it does not). */
enum {
    RS_REC_OK = 0,
    RS_REC_OP_UNKNOWN,
    RS_REC_OP_FOREIGN,
    RS_REC_ZERO_SIZE,
    RS_REC_TIME_BACK,
    RS_REC_FLAGS,
    RS_REC_SIZE_MAX, /* size_bytes above its op's limit */
};

/* Fill r_class[op] with RS_OPC_* for daemon kind id. */
void rs_op_class_fill(unsigned daemon_id, uint8_t r_class[RS_OP__MAX + 1]);

/* The known ops, for name lookups without scanning all 256 codes. */
typedef struct rs_op_entry {
    const char *name;
    size_t len;
    uint8_t op;
} rs_op_entry;

/* Fill r_ops with every known op; returns how many. */
size_t rs_op_entries(rs_op_entry r_ops[RS_OP__MAX + 1]);

static inline int rs_rec_fault(const uint8_t *op_class, uint64_t prev_t_ns, const rs_rec *rec)
{
    unsigned c = op_class[rec->op];
    if (RS_LIKELY(c >= RS_OPC_ANY_SIZE && rec->size_bytes - rs_opc_size_min[c] <= rs_opc_size_span[c]) &&
        RS_LIKELY(rec->t_ns >= prev_t_ns && rec->flags == 0))
        return RS_REC_OK;
    if (c == RS_OPC_UNKNOWN)
        return RS_REC_OP_UNKNOWN;
    if (c == RS_OPC_FOREIGN)
        return RS_REC_OP_FOREIGN;
    if (c > RS_OPC_ANY_SIZE && rec->size_bytes == 0)
        return RS_REC_ZERO_SIZE;
    if (rec->size_bytes - rs_opc_size_min[c] > rs_opc_size_span[c])
        return RS_REC_SIZE_MAX;
    if (rec->t_ns < prev_t_ns)
        return RS_REC_TIME_BACK;
    return RS_REC_FLAGS;
}

/* Fill err with "<where>: <why fault>" (RS_EINPUT) and return RS_EINPUT. */
int rs_rec_fail(rs_err *err, const char *where, int fault, uint64_t prev_t_ns,
                const rs_rec *rec, unsigned daemon_id);

/* Copy n bytes of s into dst (size cap) quoted-safe: non-printable bytes as
 * \xNN, at most 48 bytes shown then "...".  Returns dst. */
char *rs_quote(char *dst, size_t cap, const void *s, size_t n);

struct rs_trace {
    const rs_trace_codec_ops *fmt;
    const uint8_t *buf; /* [pos, len) not yet consumed: own_buf, or a window of the view */
    size_t pos, len, cap;
    int eof;            /* the source has ended (in place: the window reaches its end) */
    uint8_t *own_buf;   /* cap bytes, filled by rs_src_read; NULL when read in place */
    size_t view_len;    /* read in place: the whole stream is buf[0, view_len) */
    uint64_t line;      /* line being read (header = 1; binary record N = N + 1) */
    uint64_t prev_t_ns; /* time of the last record returned */
    unsigned daemon_id;
    rs_src src;
    char *path;         /* for messages */
    uint8_t op_class[RS_OP__MAX + 1];
    int no_fast_path;   /* tests and fuzzing: text always uses the diagnosing parser */
    size_t nops;        /* known ops, for text's name lookup */
    rs_op_entry ops[RS_OP__MAX + 1];
    int (*next)(rs_trace *tr, rs_rec *r_rec, rs_err *err); /* fmt->next, or a foreign reader's */
    /* fmt->next_many, or NULL (a foreign reader, an encoding without one) */
    int (*next_many)(rs_trace *tr, rs_rec *r_recs, uint64_t *r_lines, size_t n, size_t *r_count,
                     rs_err *err);
    void *imp;                  /* a foreign reader's state (foreign.h), or NULL */
    void (*imp_free)(void *imp);
};

struct rs_trace_writer {
    const rs_trace_codec_ops *fmt;
    uint8_t *buf;       /* encoded bytes not yet given to the sink */
    size_t len, cap;
    uint64_t records;   /* records written */
    uint64_t max_records; /* 0: no limit (rs_trace_writer_limit) */
    char limit_how[96];   /* how to raise it, for the message */
    uint64_t prev_t_ns;
    unsigned daemon_id;
    int fd;             /* of tmp_path */
    rs_sink sink;
    char *path, *tmp_path;
    uint8_t op_class[RS_OP__MAX + 1];
};

/* Make at least need (<= tr->cap) unread bytes available in tr->buf unless
 * the source ends first (then tr->eof is set); moves unread bytes to the
 * front.  Read in place, it moves the window [pos, pos + cap) instead (the
 * same bytes a buffer would hold, so every encoding behaves the same).
 * Source errors come back as "PATH:LINE: what". */
int rs_trace_fill(rs_trace *tr, size_t need, rs_err *err);
/* Fail with RS_EINPUT "PATH:LINE: <printf message>". */
int rs_trace_fail(rs_trace *tr, rs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Open a trace over an already opened source (taken over: closed on
 * failure too); name is used in messages; buf_bytes >= RS_TRACE_BUF_MIN_BYTES
 * (0 = RS_TRACE_BUF_BYTES).  Small buffers are for tests and the fuzzer. */
int rs_trace_open_src(rs_trace **r_tr, rs_src *src, const char *name, size_t buf_bytes,
                      rs_err *err);
/* The same; map_files: read a plain regular file in place (rs_src_view). */
int rs_trace_open_src_map(rs_trace **r_tr, rs_src *src, const char *name, size_t buf_bytes,
                          int map_files, rs_err *err);
/* The same over len bytes at data (which must outlive the trace). */
int rs_trace_open_mem(rs_trace **r_tr, const void *data, size_t len, const char *name,
                      size_t buf_bytes, rs_err *err);

#endif
