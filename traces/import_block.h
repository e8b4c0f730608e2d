/*
 * import_block.h — block I/O traces of other tools as osd traces
 * (`rssim trace import`).
 *
 * The importers are the trace codecs with import_line (trace.h,
 * RS_TRACE_CODECS); the two today, plain or gzip-compressed (detected by zlib):
 *   msr     MSR-Cambridge CSV (SNIA IOTTA "MSR Cambridge Traces"): seven
 *           comma-separated fields per line, Timestamp (Windows filetime,
 *           100 ns units), Hostname, DiskNumber, Type (Read|Write), Offset
 *           (bytes), Size (bytes), ResponseTime (100 ns units, ignored);
 *           an optional header line 1 starting with "Timestamp" is skipped;
 *   blocks  `start_block nblocks [R|W]` lines, whitespace separated, blocks
 *           of block_bytes; the op defaults to a read; line i (the i-th I/O)
 *           is at i × interval_ns (0: every record at t 0, a closed loop).
 * Blank lines and lines starting with '#' are skipped in both.  Each I/O
 * becomes one record per RADOS object it touches (osd_io.h), thread 0;
 * msr times are relative to the first I/O and must not decrease.
 *
 * Bad input fails with RS_EINPUT and "PATH:LINE: what": wrong field count,
 * non-numeric or negative number, zero length, unknown op, time going
 * backwards, offset + length past 2^63, a line over 4095 bytes, an I/O that
 * touches more than RS_IMPORT_MAX_RECORDS_PER_IO objects.  So the output is
 * bounded by the input: at most that many records per input line.
 */
#ifndef RS_IMPORT_BLOCK_H
#define RS_IMPORT_BLOCK_H

#include <stdint.h>

#include "trace.h"

/* The most records one I/O (one input line) may become: 65536, an I/O of
 * 256 GiB in RBD's default 4 MiB objects (a 1 MiB I/O is 1 or 2). */
#define RS_IMPORT_MAX_RECORDS_PER_IO 65536ull

typedef struct rs_import_opts {
    const char *from;      /* the importer's codec name: "msr", "blocks" */
    uint64_t object_bytes; /* RADOS object size, 1 .. 2^32 */
    uint64_t block_bytes;  /* blocks: bytes per block, >= 1 */
    uint64_t interval_ns;  /* blocks: time between two I/Os; 0 = closed loop */
    const char *root;      /* strace: the folder on CephFS (NULL: the first cwd) */
    const char *cwd;       /* strace: the first process's cwd (NULL: from -y) */
    uint32_t clients;      /* strace: clients by process tree; 0 = one per process */
} rs_import_opts;

typedef struct rs_import_stats {
    uint64_t lines;   /* lines read */
    uint64_t ios;     /* I/Os imported */
    uint64_t records; /* records written (ios plus the splits) */
    uint64_t reads, writes;
    /* strace (import_strace.h): system calls read, processes seen,
     * the records of client 0 (the tree before the recording);
     * ios counts the calls that wrote records */
    uint64_t calls, processes, setup_records;
} rs_import_stats;

/* One I/O a line describes (what an importer's import_line fills). */
typedef struct rs_import_io {
    uint64_t t_ns, off_bytes, len_bytes;
    rs_op op;
} rs_import_io;

/* The import loop's state handed to import_line (opaque outside
 * import_block.c, where the importers' shared field checks live). */
typedef struct rs_import_reader rs_import_reader;

/* Read in_path as opts->from and write its I/Os to w, a writer opened for
 * daemon "osd".  The caller closes w on success and aborts it on error. */
/* Import in_path as opts->from into w: line by line for import_line codecs
 * (w opened for "osd"), by the codec's import_file for the others (w opened
 * for rs_import_daemon(codec)). */
int rs_import_block(const char *in_path, const rs_import_opts *opts, rs_trace_writer *w,
                    rs_import_stats *r_stats, rs_err *err);

/* The daemon kind a codec's import writes: its import_daemon, or "osd". */
const char *rs_import_daemon(const rs_trace_codec_ops *codec);

#endif
