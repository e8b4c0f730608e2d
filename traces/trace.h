/*
 * trace.h — rssim trace records and the streaming reader/writer API.
 *
 * A trace is a time-ordered stream of fixed-size records (rs_rec).  Two
 * encodings exist, both versioned (v1) and both readable plain, gzip- or
 * zstd-compressed (detected from the first bytes, not the file name):
 *   - text:   TSV, first line "#rssim-trace<TAB>v1<TAB>daemon=<kind>",
 *             second line the column names, then one record per line;
 *   - binary: a 16-byte header ("RSSIMTRC", u32 version, u32 daemon id)
 *             followed by 32-byte little-endian records.
 * docs/trace-format.md is the normative spec.  Reading is streaming with a
 * bounded buffer, so a trace larger than RAM works.
 *
 * Validation happens in the reader: wrong field count, non-numeric field,
 * negative size, unknown op, time going backwards, truncated binary record,
 * wrong header or version all fail with RS_EINPUT and a message
 * "FILE:LINE: what" (for binary, LINE is the 1-based record number + 1, so
 * the header is line 1, as in text).
 */
#ifndef RS_TRACE_H
#define RS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/base/err.h"

/* Operation codes.  Values are part of the binary format: never renumber. */
typedef enum rs_op {
    RS_OP_GET = 1,     /* kv: read key; miss inserts size_bytes */
    RS_OP_SET = 2,     /* kv: write key with size_bytes */
    RS_OP_DEL = 3,     /* kv: remove key */
    RS_OP_PIN = 4,     /* kv: pin key (an open reference: never trimmed) */
    RS_OP_UNPIN = 5,   /* kv: drop that reference */
    RS_OP_MALLOC = 16, /* alloc: handle=key, size_bytes, thread */
    RS_OP_FREE = 17,   /* alloc: handle=key, size_bytes = its allocated size, thread */
    RS_OP_RELEASE = 18, /* alloc: the allocator's explicit release (malloc_trim, purge,
                         * ReleaseFreeMemory); key and size_bytes 0 */
    /* mds: thread = client; key = the inode the op is about; size_bytes =
     * its parent directory's inode for the ops that name a dentry (MKDIR,
     * CREATE, LOOKUP, UNLINK, RMDIR), else 0; aux = the dentry name's length
     * in bytes (ops naming a dentry), else 0.  Inode 1 is the root. */
    RS_OP_MKDIR = 32,
    RS_OP_CREATE = 33,
    RS_OP_LOOKUP = 34,
    RS_OP_GETATTR = 35,
    RS_OP_OPEN = 36,
    RS_OP_CLOSE = 37,
    RS_OP_READDIR = 38,
    RS_OP_UNLINK = 39,
    RS_OP_RMDIR = 40,
    /* osd: thread = client job; key = RADOS object number; size_bytes =
     * length (> 0); aux = byte offset inside the object. */
    RS_OP_READ = 48,
    RS_OP_WRITE = 49,
    RS_OP__MAX = 255,
} rs_op;

/* One record; the binary encoding is exactly these 32 bytes, little-endian. */
typedef struct rs_rec {
    uint64_t t_ns;       /* virtual time, nanoseconds, non-decreasing */
    uint64_t key;        /* object key / handle / inode, per op */
    uint64_t size_bytes; /* object or allocation size */
    uint32_t aux;        /* op-specific extra (0 for kv) */
    uint16_t thread;     /* issuing thread or client */
    uint8_t op;          /* rs_op */
    uint8_t flags;       /* reserved, 0 */
} rs_rec;

_Static_assert(sizeof(rs_rec) == 32, "rs_rec is the 32-byte binary record");

/* The largest size_bytes a record may carry, where the format bounds it
 * (docs/trace-format.md §4; the reader and the writer refuse more, and the
 * generators refuse options that would write more):
 *   - a kv value (GET, SET): below 4 GiB, as the object table that holds it
 *     stores a size in 32 bits (models/layout/objects.c refuses 2^32 - 1);
 *   - a MALLOC: 256 GiB, the most address space an allocator model's heap
 *     may span (RS_ALLOC_MAX_HEAP_BYTES, models/alloc/alloc.h), so a page or
 *     size-class computation never wraps. */
#define RS_REC_VALUE_MAX_BYTES ((uint64_t)UINT32_MAX - 1)
#define RS_REC_MALLOC_MAX_BYTES ((uint64_t)1 << 38)

/* Name of op ("GET") or NULL when unknown; and the reverse (-1 unknown). */
const char *rs_op_name(unsigned op);
int rs_op_parse(const char *name, size_t len);

/* Daemon kinds a trace may declare: "kv", "alloc", "mds", "osd". */
int rs_trace_daemon_id(const char *name);       /* -1 when unknown */
const char *rs_trace_daemon_name(unsigned id);  /* NULL when unknown */

typedef struct rs_trace rs_trace;

/* Open path for reading (plain/.gz/.zst, text or binary, detected). */
int rs_trace_open(rs_trace **r_tr, const char *path, rs_err *err);
/* The same, reading a plain regular file in place through a read-only
 * mapping (no read(2) copy; anything else as rs_trace_open).  The same
 * records and errors; a file truncated or changed while mapped fails the
 * read with RS_EINPUT ("changed/truncated while it was being read").
 * Not the default: on the machine this was measured on (a VM), touching a
 * mapping's pages for the first time cost more than read(2)'s copy
 * (docs/validation.md, "reading the trace"). */
int rs_trace_open_mapped(rs_trace **r_tr, const char *path, rs_err *err);
/* Is tr decoded in place or from plain bytes with a fixed record size (an
 * uncompressed binary encoding), so that decoding costs a few ns a record? */
int rs_trace_cheap_decode(const rs_trace *tr);
/* Open path (plain/.gz/.zst) as a trace of another tool: format is
 * "NAME" or "NAME:SPEC" naming a codec with open_foreign (csv, txt,
 * oracleGeneral, mtrace, msr, blocks; docs/trace-format.md §7).  The
 * records read are checked by the same rules as an rssim trace's. */
int rs_trace_open_foreign(rs_trace **r_tr, const char *path, const char *format, rs_err *err);
/* The same over len bytes at data (which must outlive the trace). */
int rs_trace_open_foreign_mem(rs_trace **r_tr, const void *data, size_t len, const char *name,
                              const char *format, rs_err *err);
/* Next record: 1 = a record in *r_rec, 0 = end of trace, <0 = error. */
int rs_trace_next(rs_trace *tr, rs_rec *r_rec, rs_err *err);
/* Up to n records into r_recs and each one's line (rs_trace_line's) into
 * r_lines, *r_count of them: 1 when all n were read, else 0 = end of trace
 * or <0 = error after the *r_count before it.  The same records and
 * errors as n calls of rs_trace_next, in one call (the binary encoding
 * decodes them in one loop). */
int rs_trace_next_many(rs_trace *tr, rs_rec *r_recs, uint64_t *r_lines, size_t n,
                       size_t *r_count, rs_err *err);
const char *rs_trace_daemon(const rs_trace *tr); /* e.g. "kv" */
const char *rs_trace_format(const rs_trace *tr); /* "text" | "binary" */
/* 1 when tr's positions count records (a binary trace), not text lines. */
int rs_trace_numbered_records(const rs_trace *tr);
const char *rs_trace_compression(const rs_trace *tr); /* "none"|"gzip"|"zstd" */
const char *rs_trace_path(const rs_trace *tr);
/* Line of the record rs_trace_next returned last (binary: record index + 2,
 * so the header is line 1, as in text). */
uint64_t rs_trace_line(const rs_trace *tr);
void rs_trace_close(rs_trace *tr);

typedef struct rs_trace_writer rs_trace_writer;

/* Create path (written as path.tmp, renamed on a successful close).
 * format: "text" or "binary"; compression from the name: ".gz", ".zst". */
int rs_trace_writer_open(rs_trace_writer **r_w, const char *path,
                         const char *format, const char *daemon, rs_err *err);
int rs_trace_write(rs_trace_writer *w, const rs_rec *rec, rs_err *err);
/* Flush, close and rename into place; on error the partial file is removed. */
int rs_trace_writer_close(rs_trace_writer *w, rs_err *err);
/* Abandon: close and remove the temporary file. */
void rs_trace_writer_abort(rs_trace_writer *w);
/* The most records a command writes to one trace unless told otherwise
 * (`rssim gen` and `rssim trace import`, option --max-records): 2^28, 8 GiB
 * of binary trace, so no option or input can make one fill the disk. */
#define RS_TRACE_MAX_RECORDS ((uint64_t)1 << 28)
/* Refuse a record past the max_records-th (0: no limit) with RS_EINPUT
 * "PATH: record N: more than M records (how)"; how says how to raise it. */
void rs_trace_writer_limit(rs_trace_writer *w, uint64_t max_records, const char *how);

/* Summary of a whole trace (rssim trace stats). */
typedef struct rs_trace_summary {
    uint64_t records;
    uint64_t t_first_ns, t_last_ns;
    uint64_t op_count[RS_OP__MAX + 1];
    uint64_t distinct_keys;   /* exact, via a hash set */
    uint64_t bytes_total;     /* sum of size_bytes over all records */
    uint64_t bytes_distinct;  /* sum of the last size seen per distinct key
                                 (records with size_bytes 0, e.g. DEL/FREE, do
                                 not reset a key's size) */
} rs_trace_summary;

int rs_trace_summarize(const char *path, rs_trace_summary *r_sum, rs_err *err);
/* The same over the remaining records of an open trace (tr stays open). */
int rs_trace_summarize_from(rs_trace *tr, rs_trace_summary *r_sum, rs_err *err);

/* SHA-256 of the file's bytes as 64 hex characters + NUL. */
int rs_file_sha256(const char *path, char r_hex[65], rs_err *err);

/* ---- trace codecs ------------------------------------------------------
 *
 * A codec is one trace format: rssim's own encodings, which the reader
 * detects from the first bytes and the writer produces, and importers of
 * other tools' traces, read one line at a time by `rssim trace import
 * --from NAME` (import_block.h).  Each group of slots is optional: a codec
 * reads and writes (text, binary), or imports (msr, blocks line by line;
 * strace as a whole file, import_strace.h).  The one list
 * of codecs is RS_TRACE_CODECS below; sim/registry.c lists the same
 * entries as the "trace format" registry (`rssim list trace`), and
 * tests/test_conformance.c and tests/fuzz/ walk it. */
struct rs_import_reader; /* import_block.h */
struct rs_import_io;

enum {
    RS_IMPORT_OPT_BLOCK_SIZE = 1u << 0, /* reads rs_import_opts.block_bytes (--block-size) */
    RS_IMPORT_OPT_INTERVAL = 1u << 1,   /* reads rs_import_opts.interval_ns (--interval) */
    RS_IMPORT_OPT_ROOT = 1u << 2,       /* reads rs_import_opts.root and .cwd (--root, --cwd) */
    RS_IMPORT_OPT_CLIENTS = 1u << 3,    /* reads rs_import_opts.clients (--clients) */
};
struct rs_import_opts;
struct rs_import_stats;

typedef struct rs_trace_codec_ops {
    const char *name; /* "text", "binary", "msr", ... */
    const char *doc;  /* one line */

    /* Read (all NULL when the codec cannot read rssim traces).  sniff: does
     * a stream starting with these n (>= 8 unless the stream is shorter)
     * bytes use this encoding?  read_header: read the header at tr->pos, set
     * tr->daemon_id, leave tr->line at the first record's line.  next: the
     * next record, as rs_trace_next. */
    int (*sniff)(const uint8_t *p, size_t n);
    int (*read_header)(rs_trace *tr, rs_err *err);
    /* 1 when a position (rs_trace_line) counts records, not text lines:
     * messages then say "record N" too. */
    int numbered_records;
    int (*next)(rs_trace *tr, rs_rec *r_rec, rs_err *err);
    /* Optional: records as rs_trace_next_many, without its end check (NULL:
     * next is called for each). */
    int (*next_many)(rs_trace *tr, rs_rec *r_recs, uint64_t *r_lines, size_t n, size_t *r_count,
                     rs_err *err);

    /* Write (NULL when the codec cannot write): encode into w->buf + w->len
     * (room for rec_max_bytes guaranteed), advancing w->len. */
    size_t rec_max_bytes; /* most bytes encode() writes for one record */
    void (*write_header)(rs_trace_writer *w);
    void (*encode)(rs_trace_writer *w, const rs_rec *rec);

    /* Import (NULL when the codec is not an importer): parse the
     * NUL-terminated line (no line end, blanks trimmed, not empty, not a
     * '#' comment; may be modified): 1 = an I/O in *r_io, 0 = nothing on
     * this line, < 0 = error "PATH:LINE: what". */
    int (*import_line)(struct rs_import_reader *rd, char *line, struct rs_import_io *r_io,
                       rs_err *err);
    unsigned import_opts; /* RS_IMPORT_OPT_* it reads besides the object size */
    /* Or the whole file at once, for formats whose lines carry state from
     * line to line (processes, descriptors, paths) and become another
     * daemon kind's records: reads in_path, writes to w (opened for
     * import_daemon), fills *r_stats; errors as import_line's.  Such an
     * importer reads no --object-size. */
    int (*import_file)(const char *in_path, const struct rs_import_opts *opts, rs_trace_writer *w,
                       struct rs_import_stats *r_stats, rs_err *err);
    const char *import_daemon; /* the kind import_file writes */
    const char *example;  /* importers: a small valid input (tests, fuzz seeds) */

    /* Foreign reader (NULL when not one): another tool's trace read as
     * rssim records, never sniffed, opened by rs_trace_open_foreign with
     * "NAME[:SPEC]" (`rssim replay --format`, `rssim trace import --from`).
     * open_foreign parses spec ("" = none; an unknown or repeated field is
     * an error naming it), sets tr->daemon_id, tr->next and tr->imp. */
    int (*open_foreign)(rs_trace *tr, const char *spec, rs_err *err);
    const char *example_spec; /* a spec that reads example ("" = none needed) */
} rs_trace_codec_ops;

extern const rs_trace_codec_ops rs_trace_codec_binary, rs_trace_codec_text, rs_trace_codec_msr,
    rs_trace_codec_blocks, rs_trace_codec_oracle_general, rs_trace_codec_csv, rs_trace_codec_txt,
    rs_trace_codec_mtrace, rs_trace_codec_strace;

/* Every codec, the one list: adding a codec is its file and its entry
 * here.  The reader tries the sniffers in this order. */
#define RS_TRACE_CODECS                                                                   \
    &rs_trace_codec_binary, &rs_trace_codec_text, &rs_trace_codec_msr, &rs_trace_codec_blocks, \
    &rs_trace_codec_oracle_general, &rs_trace_codec_csv, &rs_trace_codec_txt,                \
    &rs_trace_codec_mtrace, &rs_trace_codec_strace

/* RS_TRACE_CODECS as an array, NULL-terminated. */
extern const rs_trace_codec_ops *const rs_trace_codecs[];
/* The codec called name, or NULL. */
const rs_trace_codec_ops *rs_trace_codec_find(const char *name);
/* The names of the codecs that can write (want = 'w'), import ('i': block
 * importers and foreign readers) or be read as foreign traces ('f'),
 * ", "-separated, into buf; returns buf. */
const char *rs_trace_codec_names(int want, char *buf, size_t cap);

#endif
