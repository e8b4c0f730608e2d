/*
 * sample.h — spatial sampling of an mds trace: a record source that keeps
 * the records of a deterministic 1/k of the namespace's directories, and
 * the run keys a sampled run scales (docs/models.md, "Sampled MDS runs").
 *
 * The unit is a directory: a directory D is kept when
 * rs_hash64(D ^ RS_SAMPLE_SALT) < 2^64 / k — SHARDS's rule (Waldspurger,
 * Park, Garthwaite & Ahmad, "Efficient MRC Construction with SHARDS",
 * FAST '15: sample the references whose hashed key falls under a threshold),
 * applied to the directory instead of the block.  A kept directory brings
 * its own inode, its dirfrag and every dentry in it (the files it holds and
 * their requests); a subdirectory is its own unit.  The hash is fixed and
 * independent of the run's seed and of --jobs, so a sampled run is as
 * deterministic as a full one.
 *
 * The filter keeps a set of the kept inodes it has seen born (MKDIR,
 * CREATE), so the ops that name only an inode (GETATTR, OPEN, CLOSE,
 * READDIR) follow their file's directory: memory grows with the kept
 * inodes alive, ~1/k of the namespace, ~20 B each.  A kept directory whose
 * parent is not kept is re-parented to the root (inode 1) in the records
 * that name it (MKDIR, LOOKUP, RMDIR), so the sampled namespace is a forest
 * under the root and the MDS model never needs an unkept ancestor.
 */
#ifndef RS_SAMPLE_H
#define RS_SAMPLE_H

#include <stdint.h>

#include "../sim/base/config.h"
#include "../sim/base/err.h"
#include "source.h"

/* The largest k of the run key mds_sample_k. */
#define RS_SAMPLE_MAX_K 4096u
/* The sampling error measured against full runs (docs/validation.md,
 * "Sampled MDS runs"), printed with every sampled result. */
#define RS_SAMPLE_ERROR_NOTE                                                                   \
    "sampling error measured <= 1.6% on RSS, x and overshoot at 8, 64 and 256 GiB for k <= 16 " \
    "(docs/validation.md)"

typedef struct rs_sample_filter rs_sample_filter;

/* A filter keeping 1/k of the directories of the records src yields;
 * r_src reads through it (src must outlive it). */
int rs_sample_filter_new(rs_sample_filter **r_f, uint32_t k, const rs_rec_source *src,
                         rs_rec_source *r_src, rs_err *err);
void rs_sample_filter_free(rs_sample_filter *f);
/* Records read and kept so far. */
void rs_sample_filter_counts(const rs_sample_filter *f, uint64_t *r_read, uint64_t *r_kept);

/* Whether directory inode dir is kept at 1/k (the filter's rule). */
int rs_sample_dir_kept(uint64_t dir, uint32_t k);

/* Set in cfg the run keys that size the sampled cache for 1/k of the
 * namespace (the cache limit, the trim and recall counts, the journal's
 * segment size, per-client bytes: docs/models.md lists each and why);
 * alloc is the run's allocator model's name.  A key is scaled from its
 * value in cfg or, when unset, from its default. */
int rs_sample_scale_config(rs_config *cfg, uint32_t k, const char *alloc, rs_err *err);

#endif
