/*
 * alloc_tee.h — an allocator that forwards to another and writes every call
 * as an allocation trace (daemon kind "alloc": MALLOC, FREE, RELEASE).
 *
 * It is how a run's exact malloc/free sequence — after the daemon model's
 * layout, cache policy and trim timing have decided it — reaches rssim-real,
 * which replays it with the real allocator for ground truth.  The handle of
 * an allocation is its simulated address (unique among live allocations);
 * times are the virtual times of the calls, so the trace is time-ordered.
 */
#ifndef RS_ALLOC_TEE_H
#define RS_ALLOC_TEE_H

#include "../models/alloc/alloc.h"
#include "../traces/trace.h"

typedef struct rs_alloc_tee {
    rs_alloc inner;          /* the model that does the work */
    rs_alloc_ops ops;        /* inner's ops, its state-changing calls recorded */
    rs_trace_writer *writer; /* borrowed */
    int failed;              /* a write failed: err says why */
    rs_err err;
} rs_alloc_tee;

/* Make *alloc write through tee: afterwards alloc->ops is tee->ops (the
 * wrapped model's, with every state-changing call recorded, and every
 * property it declares, reports_heap among them, kept) and alloc->state is
 * tee; the model it wrapped is in tee->inner.  tee must outlive the wrap. */
void rs_alloc_tee_wrap(rs_alloc *alloc, rs_alloc_tee *tee, rs_trace_writer *writer);
/* Undo the wrap (before destroying the model through alloc). */
void rs_alloc_tee_unwrap(rs_alloc *alloc, rs_alloc_tee *tee);

#endif
