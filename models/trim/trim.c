/* trim.c — build the trim policy a config names; see trim.h. */
#include "trim.h"

#include "../../sim/registry.h"

int rs_trim_create(const rs_config *cfg, rs_engine *eng, const rs_trim_target *tgt,
                   rs_trim_stats *stats, rs_trim *r_trim, rs_err *err)
{
    const void *ops;
    int rc = rs_registry_get(&rs_reg_trim, rs_config_string(cfg, "trim"), &ops, err);
    if (rc)
        return rc;
    r_trim->ops = ops;
    return r_trim->ops->create(cfg, eng, tgt, stats, &r_trim->state, err);
}

void rs_trim_destroy(rs_trim *trim)
{
    if (trim->ops)
        trim->ops->destroy(trim->state);
    trim->ops = NULL;
    trim->state = NULL;
}
