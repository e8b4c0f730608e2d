/*
 * schema.h — the parameters a run's config may hold: rssim's core keys and
 * every registered plug-in's, with the checks that need the registry (a key
 * that picks a plug-in must name one).  The config itself (sim/base/config.h)
 * knows none of this; it is handed this schema.
 */
#ifndef RS_SCHEMA_H
#define RS_SCHEMA_H

#include "../models/alloc/alloc.h"
#include "../models/daemon/daemon.h"
#include "base/config.h"

/* What a run config chooses: its daemon, allocator, and the plug-in for each
 * of the daemon's slots. */
typedef struct rs_components {
    const rs_daemon_ops *daemon;
    const rs_alloc_ops *alloc;
    const void *parts[RS_DAEMON_MAX_SLOTS]; /* per daemon->slots[i] */
    size_t nparts;
} rs_components;

/* Whether the run c describes reads key: a core key, its daemon's,
 * allocator's, a slot's key or a param of the plug-in the slot chose. */
int rs_schema_reads(const rs_components *c, const char *key);

/* The core (non-plug-in) parameters. */
extern const rs_param rs_core_params[];

/* The declaration of a run config's key (core or any plug-in's), or NULL. */
const rs_param *rs_schema_param(const char *key);

/* A new, empty run config: its keys are the core parameters and every
 * plug-in's; rs_config_validate also checks the plug-in names. */
int rs_config_new(rs_config **r_cfg, rs_err *err);

/* Resolve cfg's daemon, allocator and slot plug-ins (defaults for unset
 * keys); RS_EINPUT naming the key for an unknown name. */
int rs_schema_resolve(const rs_config *cfg, rs_components *r, rs_err *err);

/* A preset is a profile: its keys for a plug-in the user replaced (--set
 * alloc=glibc on a jemalloc preset drops its jemalloc_* keys) are removed,
 * so a run stores only the keys in effect.  Only keys read from the preset
 * file go, and only when the user chose one of the daemon, alloc or slot
 * keys; a key the user set that nothing reads stays, and rs_config_validate
 * refuses it.  note(ctx, key, origin), if given, is told each dropped key. */
int rs_schema_prune(rs_config *cfg, void (*note)(void *ctx, const char *key, const char *origin),
                    void *ctx, rs_err *err);

/* rs_schema_prune, then rs_config_validate: a config ready to run. */
int rs_schema_finish(rs_config *cfg, void (*note)(void *ctx, const char *key, const char *origin),
                     void *ctx, rs_err *err);

#endif
