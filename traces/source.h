/*
 * source.h — a stream of trace records, as the engine consumes it.
 *
 * The engine reads records through this and knows nothing of where they
 * come from: an open trace read in place (rs_trace_source), a readahead
 * thread decoding one (rs_readahead_source, started and stopped by whoever
 * runs the engine), a generator, or a test's array.  next() returns 1 with
 * a record, 0 at the end, or a negative RS_E* with err filled; line() is the
 * position of the record next() returned last (a text line, or a record
 * number), and path names the source, both for messages.  next_many, when
 * a source has it, reads up to n records at once with their lines (a call
 * and a line() per record cost more than decoding a binary record), and
 * says at its end what next() would have said after the last of them.
 */
#ifndef RS_SOURCE_H
#define RS_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../sim/base/err.h"
#include "trace.h"

typedef struct rs_rec_source {
    void *ctx;
    int (*next)(void *ctx, rs_rec *r_rec, rs_err *err);
    uint64_t (*line)(const void *ctx);
    const char *path;
    /* Optional: up to n records into r_recs, each one's line into r_lines;
     * *r_count gets how many.  Returns 1 when it read all n, else 0 at the
     * end or a negative RS_E* with err filled, as next() would have. */
    int (*next_many)(void *ctx, rs_rec *r_recs, uint64_t *r_lines, size_t n, size_t *r_count,
                     rs_err *err);
} rs_rec_source;

/* A record source reading tr in place, on the caller's thread. */
void rs_trace_source(rs_trace *tr, rs_rec_source *r_src);

#endif
