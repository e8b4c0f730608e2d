/*
 * kb_tree.h — the kernel-build template: one Linux source tree plus what
 * `make defconfig && make` leaves in it, as an array of nodes, and the
 * per-build program of steps every (client, build) stream replays
 * (traces/gen/kernel_build.c).  Internal to traces/gen/ and its tests.
 *
 * Nodes 0 .. n_tree-1 are the tree listing's entries in tar order; the build
 * outputs follow (listing order).  A node's id is also its inode offset in a
 * build: ids n_nodes (RS_KB_TOP, the build's own directory) and
 * n_nodes + 1 + j (the transient depfile of compilation j) complete the
 * space, so a build spans n_nodes + 1 + n_cc inode numbers.
 *
 * Listings are TSV (plain, gzip or zstd): optional '#' comment lines, a
 * header line whose first field is "path", then `path size type` (tree) or
 * `path size type phase` (outputs); type f|d|l, phase defconfig|build; paths
 * relative to the tree's top, parents listed before children.  Bad lines
 * fail with RS_EINPUT "FILE:LINE: what".
 *
 * The template is built once and shared read-only by all streams: about
 * 40 bytes per node (94 K nodes for linux 6.1) plus 8 bytes per step.
 */
#ifndef RS_KB_TREE_H
#define RS_KB_TREE_H

#include <stdint.h>

#include "../../sim/base/err.h"

#define RS_KB_NONE UINT32_MAX

typedef struct rs_kb_node {
    uint32_t parent;       /* node id; RS_KB_NONE = the build's top directory */
    uint32_t first_child;  /* RS_KB_NONE when none; children in listing order */
    uint32_t next_sibling; /* RS_KB_NONE at the end */
    uint32_t last_child;   /* for appending */
    uint32_t name_len;     /* basename length in bytes */
    uint64_t size_bytes;   /* size in the listing */
    char type;             /* 'f', 'd' or 'l' */
    uint8_t phase;         /* RS_KB_UNTAR for tree nodes, else the creating phase */
} rs_kb_node;

/* The phases of one build, in time order. */
typedef enum rs_kb_phase {
    RS_KB_UNTAR,     /* tar xf: MKDIR the build dir, then every entry */
    RS_KB_DEFCONFIG, /* make defconfig: read the Kconfig files, create its outputs */
    RS_KB_BUILD,     /* make: compilations and the other outputs */
    RS_KB_RM,        /* rm -rf: READDIR, UNLINK, RMDIR bottom-up */
    RS_KB_NPHASES,
} rs_kb_phase;

typedef enum rs_kb_step_kind {
    RS_KB_S_MKDIR,   /* arg = node id (or RS_KB_TOP) */
    RS_KB_S_CREATE,  /* arg = node id (files and symlinks) */
    RS_KB_S_READ,    /* arg = tree node: LOOKUP + GETATTR the first time a build reads it */
    RS_KB_S_CC,      /* arg = compilation index */
    RS_KB_S_READDIR, /* arg = directory node id (or RS_KB_TOP) */
    RS_KB_S_UNLINK,  /* arg = node id */
    RS_KB_S_RMDIR,   /* arg = directory node id (or RS_KB_TOP) */
} rs_kb_step_kind;

typedef struct rs_kb_step {
    uint32_t arg;
    uint8_t kind; /* rs_kb_step_kind */
} rs_kb_step;

/* One compilation: read its source and headers, write .o, .d, .cmd, unlink .d. */
typedef struct rs_kb_cc {
    uint32_t obj;     /* the .o output node */
    uint32_t cmd;     /* its .<name>.o.cmd output node */
    uint32_t src;     /* the .c/.S tree node it compiles; RS_KB_NONE when not in the tree */
    uint32_t headers; /* header reads it draws (from the .cmd size) */
} rs_kb_cc;

/* How many headers a compilation reads, estimated from its .cmd file (which
 * lists every dependency): max(1, (cmd_bytes - fixed_bytes) / per_header_bytes). */
typedef struct rs_kb_cc_model {
    uint64_t cmd_fixed_bytes;
    uint64_t cmd_bytes_per_header;
} rs_kb_cc_model;

typedef struct rs_kb_tmpl {
    rs_kb_node *nodes;
    uint32_t n_nodes, n_tree;
    rs_kb_step *steps;                      /* the program of one build */
    uint32_t n_steps;
    uint32_t phase_first[RS_KB_NPHASES + 1]; /* steps of phase p: [first[p], first[p+1]) */
    rs_kb_cc *cc;
    uint32_t n_cc;
    uint32_t max_cc_headers;                /* largest rs_kb_cc.headers */
    uint32_t *header_pool;                  /* tree nodes compilations read headers from */
    uint32_t n_header_pool;
    /* counts, for summaries and tests */
    uint32_t tree_count[3];                 /* f, d, l entries of the tree listing */
    uint32_t out_count[RS_KB_NPHASES][3];   /* f, d, l outputs per creating phase */
    uint32_t out_rewrites;                  /* output lines naming an existing entry */
    uint32_t kconfig_reads;                 /* Kconfig files make defconfig reads */
} rs_kb_tmpl;

/* RS_KB_TOP: the id of a build's top directory (== n_nodes). */
#define RS_KB_TOP(t) ((t)->n_nodes)

/* Load both listings and build the program.  On failure *t is released. */
int rs_kb_tmpl_load(rs_kb_tmpl *t, const char *tree_path, const char *outputs_path,
                    const rs_kb_cc_model *model, rs_err *err);
void rs_kb_tmpl_release(rs_kb_tmpl *t);

/* Index 0/1/2 of type 'f'/'d'/'l' in the count arrays. */
static inline int rs_kb_type_index(char type)
{
    return type == 'f' ? 0 : type == 'd' ? 1 : 2;
}

#endif
