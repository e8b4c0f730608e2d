/*
 * per_item.h — what one cached object costs: RSS and accounted bytes per
 * cached inode (daemon mds) or onode (daemon osd) at the end of a run, the
 * numbers a Ceph developer compares after changing a struct size
 * (--set mds_sizeof_CInode=...).  See per_item.c.
 */
#ifndef RS_CLI_PER_ITEM_H
#define RS_CLI_PER_ITEM_H

#include "../base/config.h"
#include "../base/err.h"
#include "../base/result.h"
#include "../store.h"

/* For a daemon that has a per-item count, compute the two per-item
 * metrics from res (its last sample and the daemon's count metric), add
 * them to res, store them with run run_id in st and print one summary line
 * on stdout; nothing for another daemon or when nothing is cached at the
 * end.  RS_EDB when the store fails. */
int rs_cli_per_item(rs_store *st, long long run_id, const rs_config *cfg, rs_result *res,
                    rs_err *err);

#endif
