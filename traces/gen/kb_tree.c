/*
 * kb_tree.c — load the kernel-build listings into one template and compile
 * the per-build program (see kb_tree.h).
 *
 * Loading keeps every path in an arena with an open-addressing map from
 * path to node, only while loading: parents are resolved by the dirname,
 * compilations are found by name (an output `dir/X.o` with an output
 * `dir/.X.o.cmd` is one compilation; its source is the tree's `dir/X.c` or
 * `dir/X.S`), and the header pool and Kconfig files are chosen by path.
 * Then the arena and map are freed: streams only need ids.
 *
 * Choices (docs/models.md, "The kernel-build workload"):
 *   - the program orders outputs as their listing does (sorted by path, so
 *     a directory comes before what it holds and a build walks the tree
 *     directory by directory, as kbuild does);
 *   - an output naming an entry that already exists is a rewrite: no new
 *     inode, no op (counted in out_rewrites);
 *   - the header pool is the x86_64 build's include path: tree `.h` files
 *     under include/ and arch/x86/include/;
 *   - make defconfig reads every Kconfig* file except those of other
 *     architectures (arch/<arch>/ other than arch/x86/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_tree.h"
#include "../../sim/base/hash.h"
#include "../../sim/base/vec.h"
#include "../stream.h"

#define MAX_LINE 8192

typedef struct loader {
    rs_kb_tmpl *t;
    char *arena;          /* NUL-terminated paths */
    size_t arena_len, arena_cap;
    uint32_t *path_off;   /* per node: offset of its path in the arena */
    uint32_t nodes_cap;
    uint32_t *map;        /* node id + 1; 0 = empty */
    uint32_t map_cap;     /* power of two */
    const char *file;     /* listing being read, for messages */
    uint64_t line;
    int outputs;          /* reading the outputs listing */
    int seen_header;
} loader;

static uint64_t hash_str(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then splitmix to spread */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return rs_hash64(h);
}

static const char *node_path(const loader *L, uint32_t id)
{
    return L->arena + L->path_off[id];
}

/* The node whose path is s[0..n), or RS_KB_NONE. */
static uint32_t map_find(const loader *L, const char *s, size_t n)
{
    if (!L->map_cap)
        return RS_KB_NONE;
    for (uint64_t i = hash_str(s, n) & (L->map_cap - 1);; i = (i + 1) & (L->map_cap - 1)) {
        uint32_t v = L->map[i];
        if (!v)
            return RS_KB_NONE;
        const char *p = node_path(L, v - 1);
        if (strncmp(p, s, n) == 0 && p[n] == '\0')
            return v - 1;
    }
}

static void map_put(loader *L, uint32_t id)
{
    const char *p = node_path(L, id);
    uint64_t i = hash_str(p, strlen(p)) & (L->map_cap - 1);
    while (L->map[i])
        i = (i + 1) & (L->map_cap - 1);
    L->map[i] = id + 1;
}

static int map_grow(loader *L, rs_err *err)
{
    uint32_t cap = L->map_cap ? L->map_cap * 2 : 1u << 16;
    uint32_t *m = calloc(cap, sizeof *m);
    if (!m)
        return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build path map");
    free(L->map);
    L->map = m;
    L->map_cap = cap;
    for (uint32_t i = 0; i < L->t->n_nodes; i++)
        map_put(L, i);
    return 0;
}

static int bad_line(const loader *L, rs_err *err, const char *what, const char *subject)
{
    return rs_fail(err, RS_EINPUT, "%s:%llu: %s%s%s%s", L->file, (unsigned long long)L->line,
                   what, subject ? " '" : "", subject ? subject : "", subject ? "'" : "");
}

static int add_node(loader *L, const char *path, size_t plen, uint64_t size_bytes, char type,
                    uint8_t phase, rs_err *err)
{
    rs_kb_tmpl *t = L->t;
    const char *slash = NULL;
    uint32_t parent = RS_KB_NONE, id;
    int rc;

    if (plen == 0 || path[0] == '/' || path[plen - 1] == '/')
        return bad_line(L, err, "bad path", path);
    for (size_t i = plen; i-- > 0;)
        if (path[i] == '/') {
            slash = path + i;
            break;
        }
    if (slash) {
        parent = map_find(L, path, (size_t)(slash - path));
        if (parent == RS_KB_NONE || t->nodes[parent].type != 'd') {
            char dir[MAX_LINE];
            memcpy(dir, path, (size_t)(slash - path));
            dir[slash - path] = '\0';
            return bad_line(L, err, "parent directory not listed before its entries:", dir);
        }
        if (t->nodes[parent].phase > phase)
            return bad_line(L, err, "entry is created before its parent directory:", path);
    }
    if ((id = map_find(L, path, plen)) != RS_KB_NONE) {
        if (!L->outputs)
            return bad_line(L, err, "duplicate path", path);
        if (t->nodes[id].type != type)
            return bad_line(L, err, "output changes the type of", path);
        t->out_rewrites++;
        return 0;
    }
    if (t->n_nodes >= (1u << 27))
        return bad_line(L, err, "too many entries at", path);
    if (t->n_nodes == L->nodes_cap) {
        uint32_t cap = L->nodes_cap ? L->nodes_cap * 2 : 4096;
        rs_kb_node *n = realloc(t->nodes, cap * sizeof *n);
        if (!n)
            return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build tree");
        t->nodes = n;
        uint32_t *o = realloc(L->path_off, cap * sizeof *o);
        if (!o)
            return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build tree");
        L->path_off = o;
        L->nodes_cap = cap;
    }
    if (L->arena_len + plen + 1 > L->arena_cap) {
        if (RS_VEC_RESERVE(L->arena, L->arena_cap, L->arena_len + plen + 1, 1u << 20))
            return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build paths");
    }
    if (L->arena_len > UINT32_MAX - plen - 1)
        return bad_line(L, err, "listing paths too long at", path);
    id = t->n_nodes++;
    L->path_off[id] = (uint32_t)L->arena_len;
    memcpy(L->arena + L->arena_len, path, plen);
    L->arena[L->arena_len + plen] = '\0';
    L->arena_len += plen + 1;
    t->nodes[id] = (rs_kb_node){
        .parent = parent, .first_child = RS_KB_NONE, .next_sibling = RS_KB_NONE,
        .last_child = RS_KB_NONE, .name_len = (uint32_t)(slash ? plen - (size_t)(slash - path) - 1 : plen),
        .size_bytes = size_bytes, .type = type, .phase = phase,
    };
    if (parent != RS_KB_NONE) {
        rs_kb_node *p = &t->nodes[parent];
        if (p->last_child == RS_KB_NONE)
            p->first_child = id;
        else
            t->nodes[p->last_child].next_sibling = id;
        p->last_child = id;
    }
    if ((uint64_t)t->n_nodes * 2 > L->map_cap && (rc = map_grow(L, err)))
        return rc;
    map_put(L, id);
    if (L->outputs)
        t->out_count[phase][rs_kb_type_index(type)]++;
    else
        t->tree_count[rs_kb_type_index(type)]++;
    return 0;
}

/* One listing line (NUL-terminated, no newline). */
static int parse_line(loader *L, char *s, rs_err *err)
{
    char *f[5];
    int n = 0;
    char *end;
    uint8_t phase = RS_KB_UNTAR;
    int want = L->outputs ? 4 : 3;

    if (s[0] == '#')
        return 0;
    f[n++] = s;
    for (char *p = s; *p; p++)
        if (*p == '\t') {
            *p = '\0';
            if (n == 5)
                break;
            f[n++] = p + 1;
        }
    if (!L->seen_header) {
        L->seen_header = 1;
        if (strcmp(f[0], "path") == 0)
            return 0;
    }
    if (n != want) {
        char what[64];
        snprintf(what, sizeof what, "expected %d tab-separated fields, found %d", want, n);
        return bad_line(L, err, what, NULL);
    }
    if (f[1][0] < '0' || f[1][0] > '9' || strlen(f[1]) > 19)
        return bad_line(L, err, "bad size", f[1]);
    uint64_t size_bytes = strtoull(f[1], &end, 10);
    if (*end)
        return bad_line(L, err, "bad size", f[1]);
    if (strlen(f[2]) != 1 || !strchr("fdl", f[2][0]))
        return bad_line(L, err, "bad type (want f, d or l)", f[2]);
    if (L->outputs) {
        if (strcmp(f[3], "defconfig") == 0)
            phase = RS_KB_DEFCONFIG;
        else if (strcmp(f[3], "build") == 0)
            phase = RS_KB_BUILD;
        else
            return bad_line(L, err, "bad phase (want defconfig or build)", f[3]);
    }
    return add_node(L, f[0], strlen(f[0]), size_bytes, f[2][0], phase, err);
}

static int read_listing(loader *L, const char *path, int outputs, rs_err *err)
{
    rs_src src;
    uint8_t buf[1 << 16];
    char line[MAX_LINE + 1];
    size_t len = 0, n;
    int rc;

    L->file = path;
    L->line = 0;
    L->outputs = outputs;
    L->seen_header = 0;
    if ((rc = rs_src_open_file(&src, path, err)))
        return rc;
    for (;;) {
        if ((rc = rs_src_read(&src, buf, sizeof buf, &n, err))) {
            rs_err_prefix(err, "%s", path);
            break;
        }
        if (n == 0) {
            if (len) { /* a last line without newline */
                line[len] = '\0';
                L->line++;
                rc = parse_line(L, line, err);
            }
            break;
        }
        for (size_t i = 0; i < n && !rc; i++) {
            if (buf[i] != '\n') {
                if (len == MAX_LINE) {
                    L->line++;
                    rc = bad_line(L, err, "line too long", NULL);
                    break;
                }
                line[len++] = (char)buf[i];
                continue;
            }
            line[len] = '\0';
            L->line++;
            if (len && line[len - 1] == '\r')
                line[--len] = '\0';
            rc = len ? parse_line(L, line, err) : bad_line(L, err, "empty line", NULL);
            len = 0;
        }
        if (rc)
            break;
    }
    rs_src_close(&src);
    return rc;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int push_step(rs_kb_tmpl *t, size_t *cap, uint8_t kind, uint32_t arg, rs_err *err)
{
    if (RS_VEC_RESERVE(t->steps, *cap, (size_t)t->n_steps + 1, 1u << 16))
        return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build program");
    t->steps[t->n_steps++] = (rs_kb_step){ .arg = arg, .kind = kind };
    return 0;
}

/* Find the compilations; cc_of[id] = compilation index of an .o, and
 * RS_KB_NONE - 1 marks a .cmd node a compilation writes. */
static int find_compilations(loader *L, const rs_kb_cc_model *m, uint32_t *cc_of, rs_err *err)
{
    rs_kb_tmpl *t = L->t;
    char buf[MAX_LINE + 16];

    for (uint32_t id = t->n_tree; id < t->n_nodes; id++) {
        const char *p = node_path(L, id), *b = base_name(p);
        size_t dlen = (size_t)(b - p), blen = strlen(b);
        if (t->nodes[id].type != 'f' || !has_suffix(b, ".o") || blen < 3)
            continue;
        snprintf(buf, sizeof buf, "%.*s.%s.cmd", (int)dlen, p, b);
        uint32_t cmd = map_find(L, buf, strlen(buf));
        if (cmd == RS_KB_NONE || cmd < t->n_tree || cc_of[cmd] != RS_KB_NONE)
            continue;
        uint32_t src = RS_KB_NONE;
        static const char *const exts[] = { "c", "S" };
        for (int e = 0; e < 2 && src == RS_KB_NONE; e++) {
            snprintf(buf, sizeof buf, "%.*s%.*s%s", (int)dlen, p, (int)(blen - 1), b, exts[e]);
            uint32_t s = map_find(L, buf, strlen(buf));
            if (s != RS_KB_NONE && s < t->n_tree && t->nodes[s].type == 'f')
                src = s;
        }
        if (t->n_cc % 1024 == 0) {
            rs_kb_cc *c = realloc(t->cc, (t->n_cc + 1024) * sizeof *c);
            if (!c)
                return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build compilations");
            t->cc = c;
        }
        uint64_t cmd_bytes = t->nodes[cmd].size_bytes, k = 1;
        if (cmd_bytes > m->cmd_fixed_bytes && m->cmd_bytes_per_header)
            k = (cmd_bytes - m->cmd_fixed_bytes) / m->cmd_bytes_per_header;
        if (k < 1)
            k = 1;
        if (k > 1000000)
            k = 1000000;
        t->cc[t->n_cc] = (rs_kb_cc){ .obj = id, .cmd = cmd, .src = src, .headers = (uint32_t)k };
        if (k > t->max_cc_headers)
            t->max_cc_headers = (uint32_t)k;
        cc_of[id] = t->n_cc++;
        cc_of[cmd] = RS_KB_NONE - 1;
    }
    return 0;
}

static int is_kconfig(const char *p)
{
    if (!starts(base_name(p), "Kconfig"))
        return 0;
    if (!starts(p, "arch/"))
        return 1;
    return strchr(p + 5, '/') == NULL || starts(p, "arch/x86/");
}

static int rm_tree(rs_kb_tmpl *t, size_t *cap, uint32_t dir, rs_err *err)
{
    uint32_t first = dir == RS_KB_TOP(t) ? RS_KB_NONE : t->nodes[dir].first_child;
    int rc;

    if ((rc = push_step(t, cap, RS_KB_S_READDIR, dir, err)))
        return rc;
    if (dir == RS_KB_TOP(t)) { /* the top's children: the nodes without a parent */
        for (uint32_t id = 0; id < t->n_nodes; id++)
            if (t->nodes[id].parent == RS_KB_NONE &&
                (rc = t->nodes[id].type == 'd' ? rm_tree(t, cap, id, err)
                                               : push_step(t, cap, RS_KB_S_UNLINK, id, err)))
                return rc;
    } else {
        for (uint32_t id = first; id != RS_KB_NONE; id = t->nodes[id].next_sibling)
            if ((rc = t->nodes[id].type == 'd' ? rm_tree(t, cap, id, err)
                                               : push_step(t, cap, RS_KB_S_UNLINK, id, err)))
                return rc;
    }
    return push_step(t, cap, RS_KB_S_RMDIR, dir, err);
}

static int build_program(loader *L, const rs_kb_cc_model *m, rs_err *err)
{
    rs_kb_tmpl *t = L->t;
    size_t cap = 0, pool_cap = 0;
    uint32_t *cc_of = malloc((t->n_nodes ? t->n_nodes : 1) * sizeof *cc_of);
    int rc = 0;

    if (!cc_of)
        return rs_fail(err, RS_ENOMEM, "out of memory for the kernel-build program");
    for (uint32_t i = 0; i < t->n_nodes; i++)
        cc_of[i] = RS_KB_NONE;
    if ((rc = find_compilations(L, m, cc_of, err)))
        goto out;
    for (uint32_t id = 0; id < t->n_tree; id++) {
        const char *p = node_path(L, id);
        if (t->nodes[id].type != 'f' || !has_suffix(p, ".h") ||
            !(starts(p, "include/") || starts(p, "arch/x86/include/")))
            continue;
        if (RS_VEC_RESERVE(t->header_pool, pool_cap, (size_t)t->n_header_pool + 1, 4096)) {
            rc = rs_fail(err, RS_ENOMEM, "out of memory for the header pool");
            goto out;
        }
        t->header_pool[t->n_header_pool++] = id;
    }
    t->phase_first[RS_KB_UNTAR] = 0;
    if ((rc = push_step(t, &cap, RS_KB_S_MKDIR, RS_KB_TOP(t), err)))
        goto out;
    for (uint32_t id = 0; id < t->n_tree && !rc; id++)
        rc = push_step(t, &cap, t->nodes[id].type == 'd' ? RS_KB_S_MKDIR : RS_KB_S_CREATE, id, err);
    for (int ph = RS_KB_DEFCONFIG; ph <= RS_KB_BUILD && !rc; ph++) {
        t->phase_first[ph] = t->n_steps;
        if (ph == RS_KB_DEFCONFIG)
            for (uint32_t id = 0; id < t->n_tree && !rc; id++)
                if (t->nodes[id].type == 'f' && is_kconfig(node_path(L, id))) {
                    rc = push_step(t, &cap, RS_KB_S_READ, id, err);
                    t->kconfig_reads++;
                }
        for (uint32_t id = t->n_tree; id < t->n_nodes && !rc; id++) {
            if (t->nodes[id].phase != ph || cc_of[id] == RS_KB_NONE - 1)
                continue;
            if (cc_of[id] != RS_KB_NONE)
                rc = push_step(t, &cap, RS_KB_S_CC, cc_of[id], err);
            else
                rc = push_step(t, &cap, t->nodes[id].type == 'd' ? RS_KB_S_MKDIR : RS_KB_S_CREATE,
                               id, err);
        }
    }
    if (rc)
        goto out;
    t->phase_first[RS_KB_RM] = t->n_steps;
    if ((rc = rm_tree(t, &cap, RS_KB_TOP(t), err)))
        goto out;
    t->phase_first[RS_KB_NPHASES] = t->n_steps;
out:
    free(cc_of);
    return rc;
}

void rs_kb_tmpl_release(rs_kb_tmpl *t)
{
    free(t->nodes);
    free(t->steps);
    free(t->cc);
    free(t->header_pool);
    memset(t, 0, sizeof *t);
}

int rs_kb_tmpl_load(rs_kb_tmpl *t, const char *tree_path, const char *outputs_path,
                    const rs_kb_cc_model *model, rs_err *err)
{
    loader L = { .t = t };
    int rc;

    memset(t, 0, sizeof *t);
    if ((rc = read_listing(&L, tree_path, 0, err)))
        goto out;
    t->n_tree = t->n_nodes;
    if ((rc = read_listing(&L, outputs_path, 1, err)))
        goto out;
    if (t->n_tree == 0)
        rc = rs_fail(err, RS_EINPUT, "%s: no entries", tree_path);
    else
        rc = build_program(&L, model, err);
out:
    free(L.arena);
    free(L.path_off);
    free(L.map);
    if (rc)
        rs_kb_tmpl_release(t);
    return rc;
}
