/*
 * kv_object.c — layout "kv-object": an object is one tracked allocation of
 * its own size and nothing else.  The lower bound of container overhead:
 * only allocator rounding and fragmentation separate rss from accounted.
 */
#include <stdlib.h>

#include "layout.h"

static unsigned parts(const void *state, uint64_t object_bytes, uint32_t aux, rs_part *r_parts)
{
    (void)state;
    (void)aux;
    r_parts[0] = (rs_part){ .size_bytes = object_bytes, .tracked = 1, .name = "object" };
    return 1;
}

const rs_layout_ops rs_layout_kv_object = {
    .name = "kv-object",
    .doc = "object only: one tracked allocation of the object's size",
    .params = NULL,
    .max_parts = 1,
    .create = rs_layout_stateless_create,
    .destroy = rs_layout_stateless_destroy,
    .parts = parts,
};
