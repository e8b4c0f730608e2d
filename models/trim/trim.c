/* trim.c — build and destroy a trim policy; see trim.h. */
#include "trim.h"

int rs_trim_create(const rs_trim_ops *ops, const rs_config *cfg, rs_engine *eng,
                   const rs_trim_target *tgt, rs_trim_stats *stats, rs_trim *r_trim,
                   rs_err *err)
{
    r_trim->ops = ops;
    int rc = ops->create(cfg, eng, tgt, stats, &r_trim->state, err);
    if (rc)
        r_trim->ops = NULL;
    return rc;
}
void rs_trim_destroy(rs_trim *trim)
{
    if (trim->ops)
        trim->ops->destroy(trim->state);
    trim->ops = NULL;
    trim->state = NULL;
}
