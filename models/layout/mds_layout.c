/*
 * mds_layout.c — layouts "mds-luminous", "mds-pr19954", "mds-octopus"; see
 * mds_layout.h.  Sizes: sizeof of Ceph's headers at each commit (measured
 * with clang 14 + libstdc++ 12, x86_64); node sizes derived from libstdc++'s
 * layouts (docs/models.md, "The MDS model", lists each with its source):
 *   std::map node = 32 B _Rb_tree_node_base + the value;
 *     CDir::items        map<dentry_key_t, CDentry*>      72 B (sizeof, v15;
 *                        dentry_key_t {snapid_t, string_view, __u32 hash},
 *                        32 B, since PR 19954's 0c8ec93af7); 64 B before
 *                        it (dentry_key_t {snapid_t, const char *, __u32},
 *                        24 B: mdstypes.h of early 2018)
 *     CInode::client_caps map<client_t, Capability*>      48 B (32 + 8 + 8)
 *                        map<client_t, Capability> (v15) 360 B (sizeof)
 *     CInode::dirfrags   compact_map<frag_t, CDir*>: the std::map object it
 *                        allocates on first insert + a node of 48 B.  The
 *                        object comes from plain `new` in compact_map_base
 *                        (map.reset(new Map)), so it is never in the
 *                        mempool, not even after PR 19954; with a mempool
 *                        allocator (pool and type pointers, 16 B) it is
 *                        64 B, with std::allocator 48 B
 *   MDCache::inode_map   unordered_map<inodeno_t, CInode*> hash node with its
 *                        cached hash (std::hash<inodeno_t> is not noexcept):
 *                        next 8 + key 8 + value 8 + hash 8 = 32 B, in both
 *                        2018 versions too (MDCache.h:126@7b7a7d55b1,
 *                        :128@46c25abd1c: keyed by inodeno_t, not vinodeno_t)
 *   CDentry name         heap buffer of length + 1 when longer than 15
 *                        (libstdc++ SSO), std::string before PR 19954
 *                        (CDentry.h:346@7b7a7d55b1) and mds_co::string after
 *                        (CDentry.h:378@46c25abd1c).
 * The struct sizes were checked against the 2018 tree: g++ 12 / libstdc++ 12
 * sizeof of CInode, CDentry, CDir, Capability and the nodes above, compiled
 * from src/mds at 7b7a7d55b1 and 46c25abd1c (docs/models.md, "MDS layouts").
 * Outside the mempool in every version, for as long as the inode lives:
 *   SimpleLock::unstable_bits_t (80 B: gather set<__s32> 48, num_wrlock and
 *                        num_xlock 8, MutationRef 8 (a boost::intrusive_ptr,
 *                        Mutation.h:167), xlock_by_client and excl_client 16;
 *                        SimpleLock.h:180-188@7b7a7d55b1, plain `new` at
 *                        :211), one per lock that
 *                        CInode::set_loner_cap() gave an exclusive client
 *                        (authlock, filelock, linklock, xattrlock).  Dropping
 *                        the loner only writes -1 into it; it is freed by a
 *                        later wrlock/xlock release, so most stay
 *                        (`mds_loner_locks`, default 3 of the 4: an estimate,
 *                        docs/models.md).  Given as one allocation of n x 80
 *                        B (80, 160, 240 and 320 are all tcmalloc classes,
 *                        so one n x 80 B block takes what n blocks of 80 B
 *                        take) to keep the simulator's per-object address
 *                        slots at seven.
 * Before PR 19954 (master, 7b7a7d55b1), outside the mempool: the balancer's
 * load counters in std::vectors of DecayCounter (40 B: val, delta, vel,
 * last_decay, rate; DecayCounter.h:47-51):
 *   CInode::pop          inode_load_vec_t: 2 x 40 = 80 B (mdstypes.h:1046)
 *   CDir pop_me, pop_nested, pop_auth_subtree, pop_auth_subtree_nested
 *                        dirfrag_load_vec_t: 5 x 40 = 200 B each
 *                        (mdstypes.h:1083, CDir.h:358-361).
 * PR 19954 made them std::array inside the objects (7e2f59aad3;
 * mdstypes.h:1411,1446@46c25abd1c): part of sizeof(CInode) and sizeof(CDir)
 * there, nothing outside.
 * PR 19954's other FIXMEs (lock waiter lists, bufferptr xattrs, snap_blob,
 * inline_data, scrub_info, bloom filter) allocate nothing while they are
 * empty, which they are for a kernel build (no xattrs, snapshots, inline
 * data or scrubs); they are listed in docs/models.md and not allocated.
 */
#include "mds_layout.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define SSO_CAPACITY 15u
#define DIRFRAGS_NODE_BYTES 48u
#define LOCK_BITS_BYTES 80u
#define INODE_POP_BYTES 80u
#define DIR_POP_BYTES 200u
#define DIR_POPS 4u

static const rs_mds_sizes luminous = {
    .name = "mds-luminous", .inode = 1640, .dentry = 472, .dir = 848, .cap = 272,
    .items_node = 64, .dirfrags_map = 48, .cap_node = 48, .cap_inside_node = 0, .containers_tracked = 0, .cap_tracked = 0,
    .inode_map_node = 32, .pop_vectors = 1,
};
static const rs_mds_sizes pr19954 = {
    .name = "mds-pr19954", .inode = 1760, .dentry = 512, .dir = 1584, .cap = 288,
    .items_node = 72, .dirfrags_map = 64, .cap_node = 48, .cap_inside_node = 0, .containers_tracked = 1, .cap_tracked = 1,
    .inode_map_node = 32, .pop_vectors = 0,
};
static const rs_mds_sizes octopus = {
    .name = "mds-octopus", .inode = 1856, .dentry = 528, .dir = 1288, .cap = 320,
    .items_node = 72, .dirfrags_map = 64, .cap_node = 360, .cap_inside_node = 1, .containers_tracked = 1, .cap_tracked = 1,
    .inode_map_node = 32,
};

uint32_t rs_mds_object_bytes(const rs_mds_sizes *s, unsigned kind)
{
    switch (kind) {
    case RS_MDS_FILE: return s->dentry + s->inode;
    case RS_MDS_DIR: return s->dir;
    default: return s->dentry;
    }
}

static unsigned dentry_parts(const rs_mds_sizes *s, uint32_t name_len, rs_part *p)
{
    unsigned n = 0;
    p[n++] = (rs_part){ .size_bytes = s->dentry, .tracked = 1, .name = "CDentry" };
    p[n++] = (rs_part){ .size_bytes = s->items_node, .tracked = s->containers_tracked,
                        .name = "CDir::items node" };
    if (name_len > SSO_CAPACITY)
        p[n++] = (rs_part){ .size_bytes = (uint64_t)name_len + 1,
                            .tracked = s->containers_tracked, .name = "dentry name" };
    return n;
}

static unsigned parts_of(const rs_mds_sizes *s, uint32_t loner_locks, uint64_t object_bytes,
                         uint32_t aux, rs_part *p)
{
    unsigned kind = aux & 0xff, n;
    uint32_t name_len = aux >> 8;

    switch (kind) {
    case RS_MDS_FILE:
        n = dentry_parts(s, name_len, p);
        p[n++] = (rs_part){ .size_bytes = s->inode, .tracked = 1, .name = "CInode" };
        p[n++] = (rs_part){ .size_bytes = s->inode_map_node, .tracked = 0,
                            .name = "MDCache::inode_map node" };
        if (s->pop_vectors)
            p[n++] = (rs_part){ .size_bytes = INODE_POP_BYTES, .tracked = 0, .name = "CInode::pop" };
        if (loner_locks)
            p[n++] = (rs_part){ .size_bytes = (uint64_t)loner_locks * LOCK_BITS_BYTES, .tracked = 0,
                                .name = "SimpleLock::unstable_bits_t (loner)" };
        return n;
    case RS_MDS_NULL:
        return dentry_parts(s, name_len, p);
    case RS_MDS_DIR:
        p[0] = (rs_part){ .size_bytes = s->dir, .tracked = 1, .name = "CDir" };
        p[1] = (rs_part){ .size_bytes = s->dirfrags_map, .tracked = 0,
                          .name = "CInode::dirfrags map" };
        p[2] = (rs_part){ .size_bytes = DIRFRAGS_NODE_BYTES, .tracked = s->containers_tracked,
                          .name = "CInode::dirfrags node" };
        n = 3;
        for (unsigned i = 0; s->pop_vectors && i < DIR_POPS; i++)
            p[n++] = (rs_part){ .size_bytes = DIR_POP_BYTES, .tracked = 0, .name = "CDir pop vector" };
        return n;
    default:
        p[0] = (rs_part){ .size_bytes = object_bytes, .tracked = 1, .name = "object" };
        return 1;
    }
}

unsigned rs_mds_side_parts(const rs_mds_sizes *s, unsigned side, uint32_t request_bytes,
                           uint32_t journal_bytes, rs_part *p)
{
    switch (side) {
    case RS_MDS_CAP:
        if (s->cap_inside_node) {
            p[0] = (rs_part){ .size_bytes = s->cap_node, .tracked = s->cap_tracked,
                              .name = "client_caps node with Capability" };
            return 1;
        }
        p[0] = (rs_part){ .size_bytes = s->cap, .tracked = s->cap_tracked, .name = "Capability" };
        p[1] = (rs_part){ .size_bytes = s->cap_node, .tracked = s->containers_tracked,
                          .name = "client_caps node" };
        return 2;
    case RS_MDS_REQUEST:
        if (!request_bytes)
            return 0;
        p[0] = (rs_part){ .size_bytes = request_bytes, .tracked = 0, .name = "request" };
        return 1;
    case RS_MDS_JOURNAL:
        if (!journal_bytes)
            return 0;
        p[0] = (rs_part){ .size_bytes = journal_bytes, .tracked = 0, .name = "journal event" };
        return 1;
    default:
        return 0;
    }
}

static const rs_param params[] = {
    { .key = "mds_loner_locks", .type = RS_PT_INT, .def = "3",
      .doc = "SimpleLock::unstable_bits_t (80 B, outside the mempool) left per inode by the loner "
             "mechanism: 0..4 of authlock, filelock, linklock, xattrlock (3: an estimate, docs/models.md)",
      .range = "[0, 4]" },
    { .key = NULL },
};

static int create(const rs_config *cfg, void **r_state, rs_err *err)
{
    int64_t n = rs_config_int(cfg, "mds_loner_locks");
    uint32_t *locks = malloc(sizeof *locks);
    if (!locks)
        return rs_fail(err, RS_ENOMEM, "out of memory for an MDS layout");
    *locks = (uint32_t)n;
    *r_state = locks;
    return 0;
}

static void destroy(void *state)
{
    free(state);
}

/* One layout per sizes table: its parts() and its ops. */
#define MDS_LAYOUT(var, name_, table, doc_)                                                   \
    static unsigned parts_##table(const void *state, uint64_t object_bytes, uint32_t aux,    \
                                  rs_part *p)                                                \
    {                                                                                         \
        return parts_of(&table, *(const uint32_t *)state, object_bytes, aux, p);             \
    }                                                                                         \
    const rs_layout_ops var = {                                                               \
        .name = name_, .doc = doc_, .params = params, .max_parts = 7,                         \
        .create = create, .destroy = destroy, .parts = parts_##table,                         \
        .data_kind = RS_MDS_SIZES_KIND, .data = &table,                                       \
    }

MDS_LAYOUT(rs_layout_mds_luminous, "mds-luminous", luminous,
           "CephFS MDS before PR 19954: CInode 1640, CDentry 472, CDir 848; container nodes, "
           "names, Capability (272 + 48 B map node), load vectors and loner lock bits outside "
           "the mempool");
MDS_LAYOUT(rs_layout_mds_pr19954, "mds-pr19954", pr19954,
           "CephFS MDS after PR 19954: CInode 1760, CDentry 512, CDir 1584 (load counters "
           "inside), Capability 288; containers in mds_co; inode_map and loner lock bits outside");
MDS_LAYOUT(rs_layout_mds_octopus, "mds-octopus", octopus,
           "CephFS MDS v15.2.5: CInode 1856, CDentry 528, CDir 1288, Capability inside a 360 B "
           "client_caps node; inode_map and loner lock bits outside the mempool");

const rs_mds_sizes *rs_mds_layout_sizes(const rs_layout_ops *ops)
{
    if (!ops->data_kind || strcmp(ops->data_kind, RS_MDS_SIZES_KIND) != 0)
        return NULL;
    return ops->data;
}
