/*
 * readahead.h — decode a trace on a second thread.
 *
 * A replay's own thread is bound by the memory latency of the models; the
 * trace's read(2), decompression and decoding can run beside it.  A
 * readahead thread fills blocks of RS_READAHEAD_BLOCK records (and their
 * line numbers) from an open trace; the replay takes records from a block
 * and only synchronises once per block.  The records, their lines and any
 * error (after every record before the bad one) are exactly those of
 * rs_trace_next, so nothing about a run depends on it but its speed.
 */
#ifndef RS_READAHEAD_H
#define RS_READAHEAD_H

#include <stdint.h>

#include "source.h"
#include "trace.h"

#define RS_READAHEAD_BLOCK 4096

typedef struct rs_readahead rs_readahead;

/* Start reading tr (which the readahead uses exclusively until stopped). */
int rs_readahead_start(rs_readahead **r_ra, rs_trace *tr, rs_err *err);
/* As rs_trace_next: 1 = a record, 0 = end of trace, < 0 = error. */
int rs_readahead_next(rs_readahead *ra, rs_rec *r_rec, rs_err *err);
/* The line of the record rs_readahead_next returned last. */
uint64_t rs_readahead_line(const rs_readahead *ra);
/* A record source taking its records from ra (valid until it stops). */
void rs_readahead_source(rs_readahead *ra, rs_rec_source *r_src);
/* Stop the thread (even mid-trace) and free everything; tr stays open. */
void rs_readahead_stop(rs_readahead *ra);

#endif
