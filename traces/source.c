/* source.c — an open trace as a record source; see source.h. */
#include "source.h"

static int source_next(void *ctx, rs_rec *r_rec, rs_err *err)
{
    return rs_trace_next(ctx, r_rec, err);
}

static uint64_t source_line(const void *ctx)
{
    return rs_trace_line(ctx);
}

static int source_next_many(void *ctx, rs_rec *r_recs, uint64_t *r_lines, size_t n,
                            size_t *r_count, rs_err *err)
{
    return rs_trace_next_many(ctx, r_recs, r_lines, n, r_count, err);
}

void rs_trace_source(rs_trace *tr, rs_rec_source *r_src)
{
    *r_src = (rs_rec_source){ .ctx = tr, .next = source_next, .line = source_line,
                              .path = rs_trace_path(tr), .next_many = source_next_many };
}
