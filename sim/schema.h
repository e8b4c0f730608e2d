/*
 * schema.h — the parameters a run's config may hold: rssim's core keys and
 * every registered plug-in's, with the checks that need the registry (a key
 * that picks a plug-in must name one).  The config itself (sim/base/config.h)
 * knows none of this; it is handed this schema.
 */
#ifndef RS_SCHEMA_H
#define RS_SCHEMA_H

#include "base/config.h"

/* The core (non-plug-in) parameters. */
extern const rs_param rs_core_params[];

/* The declaration of a run config's key (core or any plug-in's), or NULL. */
const rs_param *rs_schema_param(const char *key);

/* A new, empty run config: its keys are the core parameters and every
 * plug-in's; rs_config_validate also checks the plug-in names. */
int rs_config_new(rs_config **r_cfg, rs_err *err);

#endif
