/*
 * stream.h — byte sources and sinks under the trace readers and writers
 * (internal to traces/).
 *
 * A source yields the decompressed bytes of a file or of a memory block; its
 * compression is detected from the first bytes, never from the name:
 * 1f 8b = gzip (zlib, concatenated members allowed), 28 b5 2f fd = zstd
 * (libzstd streaming API, concatenated frames allowed), anything else is
 * read as it is.  A sink compresses what it is given into a file descriptor;
 * writers choose it from the output name (".gz", ".zst", else none).  Both
 * kinds are small ops tables so a new compression is one more table.
 *
 * Memory is bounded whatever the stream length: zlib's 32 KiB window plus a
 * 64 KiB input buffer; zstd's window (at most 2^27 bytes, libzstd's default
 * limit) plus ZSTD_DStreamInSize().  Source errors carry no file or line;
 * the trace reader prefixes "PATH:LINE: ".  Compressed output is
 * deterministic (zlib writes mtime 0; zstd runs single-threaded), so the
 * same records always give the same bytes.
 */
#ifndef RS_TRACE_STREAM_H
#define RS_TRACE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/base/err.h"

/* Where compressed or plain bytes come from: a file descriptor or memory,
 * with the first bytes peeked for detection and then replayed. */
typedef struct rs_raw {
    int fd;                /* -1 for a memory source */
    const uint8_t *mem;    /* memory source: the bytes (not owned) */
    size_t mem_len, mem_pos;
    uint8_t peek[8];       /* bytes read for detection, replayed first */
    size_t peek_len, peek_pos;
} rs_raw;

typedef struct rs_src_ops {
    const char *name; /* "none" | "gzip" | "zstd": what rs_trace_compression says */
    int (*open)(void **r_state, rs_raw *raw, rs_err *err);
    /* Up to cap decompressed bytes into buf; *r_n == 0 only at the end. */
    int (*read)(void *state, rs_raw *raw, uint8_t *buf, size_t cap, size_t *r_n, rs_err *err);
    void (*close)(void *state);
} rs_src_ops;

/* A plain source read in place (rs_src_view): the whole stream as one
 * block of memory, the caller's (a memory source) or a read-only mapping of
 * a regular file (mmap(2), MADV_SEQUENTIAL).  A mapped file is guarded: it
 * is checked for changes (size, mtime) as it is consumed, and a SIGBUS from
 * a page past its end (the file was truncated while mapped) is caught by a
 * process-wide handler that maps zeros there and marks the view, so the
 * reader fails with a message instead of the process dying. */
typedef struct rs_view {
    const uint8_t *p;     /* NULL: not read in place */
    size_t len;
    void *map;            /* the mapping (owned), or NULL for memory */
    size_t dropped;       /* bytes [0, dropped) of the mapping given back */
    int guard;            /* slot in the SIGBUS guard table, -1 none */
    long long dev, ino, size, mtime_ns; /* the file as mapped */
} rs_view;

typedef struct rs_src {
    const rs_src_ops *ops;
    void *state;
    rs_raw raw;
    int own_fd; /* close raw.fd in rs_src_close */
    rs_view view;
} rs_src;

/* Open path (or len bytes at data, which must outlive the source) and
 * detect its compression.  RS_EIO when the file cannot be opened. */
int rs_src_open_file(rs_src *r_src, const char *path, rs_err *err);
int rs_src_open_mem(rs_src *r_src, const void *data, size_t len, rs_err *err);
static inline int rs_src_read(rs_src *src, uint8_t *buf, size_t cap, size_t *r_n, rs_err *err)
{
    return src->ops->read(src->state, &src->raw, buf, cap, r_n, err);
}
void rs_src_close(rs_src *src);

/* Read src in place if it can be: a plain (uncompressed) memory source, or
 * (map_files) a plain regular file that can be mapped.  1 with *r_p, *r_len the whole
 * stream (valid until rs_src_close), 0 when it must be read with
 * rs_src_read (compressed, a pipe, mmap refused), < 0 on error.  After
 * this, rs_src_read must not be used on src. */
int rs_src_view(rs_src *src, int map_files, const uint8_t **r_p, size_t *r_len, rs_err *err);
/* The reader has consumed the view up to byte `consumed`: give the pages
 * before it back (a mapped file's resident set stays bounded) and check
 * that the file has not changed or shrunk since it was mapped.  RS_EINPUT
 * (without file or line) if it has. */
int rs_src_view_advance(rs_src *src, size_t consumed, rs_err *err);
/* The same check alone (at the end of the trace or on an error). */
int rs_src_view_check(rs_src *src, rs_err *err);

typedef struct rs_sink_ops {
    const char *name;   /* "none" | "gzip" | "zstd" */
    const char *suffix; /* ".gz", ".zst"; NULL for none */
    int (*open)(void **r_state, rs_err *err);
    /* Compress n bytes of buf into fd. */
    int (*write)(void *state, int fd, const uint8_t *buf, size_t n, rs_err *err);
    /* End the stream: flush everything still held into fd. */
    int (*finish)(void *state, int fd, rs_err *err);
    void (*close)(void *state);
} rs_sink_ops;

typedef struct rs_sink {
    const rs_sink_ops *ops;
    void *state;
    int fd; /* owned by the caller */
} rs_sink;

/* The sink for an output name: by its suffix, none when no suffix matches. */
const rs_sink_ops *rs_sink_for_name(const char *path);
int rs_sink_open(rs_sink *r_sink, const rs_sink_ops *ops, int fd, rs_err *err);
static inline int rs_sink_write(rs_sink *s, const uint8_t *buf, size_t n, rs_err *err)
{
    return s->ops->write(s->state, s->fd, buf, n, err);
}
static inline int rs_sink_finish(rs_sink *s, rs_err *err)
{
    return s->ops->finish(s->state, s->fd, err);
}
void rs_sink_close(rs_sink *s);

/* write(2) all n bytes, retrying short writes and EINTR; RS_EIO on failure. */
int rs_fd_write_all(int fd, const void *buf, size_t n, rs_err *err);

#endif
