/*
 * on_insert.c — trim right after an insert that takes the cache past its
 * limit, down to the limit: BlueStore's "trim on add" (PR 28578/28597,
 * Octopus: cache->_trim() after every onode/buffer insert under the shard
 * lock).  Accounted bytes never exceed the limit by more than one object.
 */
#include <stdlib.h>

#include "trim.h"

typedef struct on_insert {
    const rs_trim_target *tgt;
    rs_trim_stats *stats;
} on_insert;

static int create(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                  rs_trim_stats *stats, void **r_state, rs_err *err)
{
    (void)cfg;
    (void)eng;
    on_insert *p = malloc(sizeof *p);
    if (!p)
        return rs_fail(err, RS_ENOMEM, "out of memory for trim policy on-insert");
    p->tgt = tgt;
    p->stats = stats;
    *r_state = p;
    return 0;
}

static void destroy(void *state)
{
    free(state);
}

static void after_insert(void *state, uint64_t now_ns)
{
    on_insert *p = state;
    uint64_t limit = p->tgt->limit_bytes(p->tgt->ctx);
    if (rs_trim_over(p->tgt, limit))
        rs_trim_apply(p->tgt, p->stats, limit, 0, now_ns);
}

const rs_trim_ops rs_trim_on_insert = {
    .name = "on-insert",
    .doc = "trim to the limit right after an insert passes it (BlueStore trim-on-add, Octopus+)",
    .params = NULL,
    .counts = 1,
    .exact = 1,
    .create = create,
    .destroy = destroy,
    .after_insert = after_insert,
};
