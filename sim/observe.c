/*
 * observe.c — a capture set of a Ceph daemon's own outputs into samples
 * (contract in observe.h, conventions in docs/observe.md).
 *
 * The shapes read, and where Ceph writes them:
 *   dump_mempools  {"mempool": {"by_pool": {POOL: {"items": N, "bytes": N}, ...},
 *                   "total": {...}}}    src/common/mempool.cc (pool_t::dump)
 *   perf_dump      {"mds_mem": {"ino": N, "cap": N, "rss": KiB, "heap": KiB, ...}}
 *                  (src/mds/MDSRank.cc, the mds_mem logger), {"bluestore-pricache":
 *                  {"target_bytes", "mapped_bytes", "unmapped_bytes", "heap_bytes",
 *                  "cache_bytes"}, "bluestore-pricache:meta": {"committed_bytes"}, ...}
 *                  (src/common/PriorityCache.cc; the OSD names its manager
 *                  "bluestore-pricache")   src/common/perf_counters.cc dumps them
 *   cache_status   {"pool": {"items": N, "bytes": N}}  src/mds/MDCache.cc (cache_status)
 *   session_ls     [{"id": N, "num_caps": N, ...}, ...]  src/mds/SessionMap.cc (Session::dump)
 *   config_get     {"KEY": "VALUE"}  src/common/config.cc
 *   heap_stats     "MALLOC: ... Bytes in use by application" ...  gperftools
 *                  src/tcmalloc.cc (DumpStats), behind src/perfglue/heap_profiler.cc
 *   proc_status    "VmRSS:  N kB"  the kernel's fs/proc/task_mmu.c
 *   ps_rss         "  RSS\nN"  KiB (procps)
 * The releases differ in the OSD's BlueStore pool names: Quincy renamed
 * bluestore_Buffer, _Extent, _Blob and _SharedBlob to bluestore_cache_buffer,
 * bluestore_extent, bluestore_blob and bluestore_shared_blob (ceph PR #40066,
 * src/include/mempool.h).
 */
#include "observe.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sampler.h"

#define OBS_MAX_POOLS 64
#define KIB 1024ull

enum {
    W_MEMPOOLS, W_PERF, W_CACHE, W_SESSIONS, W_CONFIG, W_HEAP, W_PROC, W_PS, W_COUNT
};
static const char *const what_names[W_COUNT] = {
    "dump_mempools", "perf_dump", "cache_status", "session_ls",
    "config_get", "heap_stats", "proc_status", "ps_rss",
};

/* What a release's daemons count as their cache (rssim's accounted_bytes). */
typedef struct obs_release {
    const char *name;
    const char *const *osd_pools; /* NULL-terminated */
} obs_release;

static const char *const osd_pools_pacific[] = {
    "bluestore_cache_data", "bluestore_cache_onode", "bluestore_cache_meta",
    "bluestore_cache_other", "bluestore_Buffer", "bluestore_Extent", "bluestore_Blob",
    "bluestore_SharedBlob", "bluestore_inline_bl", NULL,
};
static const char *const osd_pools_quincy[] = {
    "bluestore_cache_data", "bluestore_cache_onode", "bluestore_cache_meta",
    "bluestore_cache_other", "bluestore_cache_buffer", "bluestore_extent", "bluestore_blob",
    "bluestore_shared_blob", "bluestore_inline_bl", NULL,
};
static const char *const mds_pools[] = { "mds_co", NULL };

static const obs_release releases[] = {
    { "pacific", osd_pools_pacific }, /* 16.2 */
    { "quincy", osd_pools_quincy },   /* 17.2 */
    { "reef", osd_pools_quincy },     /* 18.2 */
};

/* One capture time: what its files said. */
typedef struct obs_point {
    int64_t t_ns; /* Unix time */
    unsigned have; /* 1 << W_* */
    char first_file[128];
    uint64_t rss_proc, rss_ps, rss_perf, vmhwm;
    uint64_t acc_mp, acc_cache, items_mp, items_perf;
    uint64_t caps, sessions;
    uint64_t limit_cfg, limit_pc, target_pc;
    uint64_t pc_heap, pc_unmapped, pc_mapped;
    uint64_t tc_inuse, tc_pageheap, tc_central, tc_transfer, tc_thread, tc_meta, tc_actual,
        tc_unmapped, tc_virtual;
    uint64_t *pools; /* OBS_MAX_POOLS, by ob->pool_names index; NULL: no dump_mempools */
} obs_point;

struct rs_observe {
    int is_mds;
    const obs_release *rel;
    obs_point *pts;
    size_t npts, cap, nfiles;
    char *pool_names[OBS_MAX_POOLS];
    int npools;
};

int rs_observe_new(rs_observe **r_ob, const char *daemon, const char *release, rs_err *err)
{
    *r_ob = NULL;
    if (strcmp(daemon, "mds") != 0 && strcmp(daemon, "osd") != 0)
        return rs_fail(err, RS_EINPUT, "unknown daemon '%s' (mds or osd)", daemon);
    const obs_release *rel = NULL;
    for (size_t i = 0; i < sizeof releases / sizeof releases[0]; i++)
        if (!strcmp(releases[i].name, release))
            rel = &releases[i];
    if (!rel)
        return rs_fail(err, RS_EINPUT, "unknown release '%s' (pacific, quincy or reef)", release);
    rs_observe *ob = calloc(1, sizeof *ob);
    if (!ob)
        return rs_fail(err, RS_ENOMEM, "out of memory");
    ob->is_mds = !strcmp(daemon, "mds");
    ob->rel = rel;
    *r_ob = ob;
    return 0;
}

void rs_observe_free(rs_observe *ob)
{
    if (!ob)
        return;
    for (size_t i = 0; i < ob->npts; i++)
        free(ob->pts[i].pools);
    for (int i = 0; i < ob->npools; i++)
        free(ob->pool_names[i]);
    free(ob->pts);
    free(ob);
}

size_t rs_observe_files(const rs_observe *ob) { return ob->nfiles; }

/* ---- file names: T-WHAT[.EXT] ---- */

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* T (seconds, up to 9 decimals) into ns and WHAT into *r_what. */
static int parse_name(const char *path, int64_t *r_t, int *r_what, rs_err *err)
{
    const char *n = base_name(path), *p = n;
    int64_t sec = 0, frac = 0;
    int digits = 0, fdigits = 0;
    while (*p >= '0' && *p <= '9' && digits < 12) {
        sec = sec * 10 + (*p++ - '0');
        digits++;
    }
    if (*p == '.') {
        p++;
        while (*p >= '0' && *p <= '9' && fdigits < 9) {
            frac = frac * 10 + (*p++ - '0');
            fdigits++;
        }
        for (int i = fdigits; i < 9; i++)
            frac *= 10;
    }
    if (!digits || *p != '-')
        return rs_fail(err, RS_EINPUT, "%s: the name is not T-WHAT[.EXT] (T the capture's "
                       "Unix time in seconds, e.g. 1764620000.25-dump_mempools.json)", path);
    p++;
    size_t wl = strcspn(p, ".");
    for (int w = 0; w < W_COUNT; w++)
        if (strlen(what_names[w]) == wl && !strncmp(p, what_names[w], wl)) {
            *r_t = sec * 1000000000 + frac;
            *r_what = w;
            return 0;
        }
    return rs_fail(err, RS_EINPUT, "%s: unknown capture '%.*s' (dump_mempools, perf_dump, "
                   "cache_status, session_ls, config_get, heap_stats, proc_status, ps_rss)",
                   path, (int)(wl < 40 ? wl : 40), p);
}

/* ---- reading ---- */

static int read_all(const char *path, char **r_buf, size_t *r_len, rs_err *err)
{
    FILE *f = fopen(path, "rb");
    struct stat sb;
    *r_buf = NULL;
    if (!f)
        return rs_fail(err, errno == ENOENT ? RS_EINPUT : RS_EIO, "cannot open '%s': %s", path,
                       strerror(errno));
    if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(f);
        return rs_fail(err, RS_EINPUT, "%s: not a regular file", path);
    }
    if ((uint64_t)sb.st_size > RS_OBSERVE_MAX_FILE_BYTES) {
        fclose(f);
        return rs_fail(err, RS_EINPUT, "%s: %lld bytes, more than the %u MiB one capture may have",
                       path, (long long)sb.st_size, RS_OBSERVE_MAX_FILE_BYTES >> 20);
    }
    char *buf = malloc((size_t)sb.st_size + 1);
    if (!buf) {
        fclose(f);
        return rs_fail(err, RS_ENOMEM, "out of memory reading '%s'", path);
    }
    size_t n = fread(buf, 1, (size_t)sb.st_size, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return rs_fail(err, RS_EIO, "cannot read '%s'", path);
    }
    buf[n] = '\0';
    *r_buf = buf;
    *r_len = n;
    return 0;
}

/* The value at a dotted JSON path (keys only), or NULL. */
static json_t *jpath(json_t *root, const char *path)
{
    char key[128];
    json_t *v = root;
    const char *p = path;
    while (v && *p) {
        size_t l = strcspn(p, ".");
        if (l >= sizeof key)
            return NULL;
        memcpy(key, p, l);
        key[l] = '\0';
        v = json_is_object(v) ? json_object_get(v, key) : NULL;
        p += l + (p[l] == '.');
    }
    return v;
}

/* A count or byte size: a non-negative JSON integer, or a real with no
 * fraction (perf dump writes some counters as reals). */
static int jnum(json_t *v, uint64_t *r)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *r = (uint64_t)json_integer_value(v);
        return 1;
    }
    if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1.8e19 &&
        floor(json_real_value(v)) == json_real_value(v)) {
        *r = (uint64_t)json_real_value(v);
        return 1;
    }
    return 0;
}

static int jget(const char *file, const char *what, json_t *root, const char *path,
                uint64_t *r, rs_err *err)
{
    json_t *v = jpath(root, path);
    if (!v)
        return rs_fail(err, RS_EINPUT, "%s: no field '%s' (%s)", file, path, what);
    if (!jnum(v, r))
        return rs_fail(err, RS_EINPUT, "%s: field '%s' is not a count >= 0 (%s)", file, path,
                       what);
    return 0;
}

static int pool_index(rs_observe *ob, const char *name, rs_err *err)
{
    for (int i = 0; i < ob->npools; i++)
        if (!strcmp(ob->pool_names[i], name))
            return i;
    if (ob->npools == OBS_MAX_POOLS)
        return rs_fail(err, RS_EINPUT, "more than %d mempools", OBS_MAX_POOLS);
    if (!(ob->pool_names[ob->npools] = strdup(name)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    return ob->npools++;
}

static int read_mempools(rs_observe *ob, obs_point *pt, const char *file, json_t *root,
                         rs_err *err)
{
    char what[64], path[160];
    snprintf(what, sizeof what, "dump_mempools of an %s, release %s", ob->is_mds ? "mds" : "osd",
             ob->rel->name);
    json_t *by = jpath(root, "mempool.by_pool");
    if (!json_is_object(by))
        return rs_fail(err, RS_EINPUT, "%s: no object 'mempool.by_pool' (%s)", file, what);
    const char *const *acc = ob->is_mds ? mds_pools : ob->rel->osd_pools;
    pt->acc_mp = 0;
    for (const char *const *p = acc; *p; p++) {
        uint64_t b;
        snprintf(path, sizeof path, "mempool.by_pool.%s.bytes", *p);
        if (jget(file, what, root, path, &b, err)) {
            if (!ob->is_mds && !jpath(root, path))
                return rs_fail(err, RS_EINPUT, "%s: no field '%s' (%s; the BlueStore pools' "
                               "names differ by release: is --release right?)", file, path, what);
            return err->code;
        }
        pt->acc_mp += b;
    }
    if (!ob->is_mds) {
        snprintf(path, sizeof path, "mempool.by_pool.%s.items", "bluestore_cache_onode");
        if (jget(file, what, root, path, &pt->items_mp, err))
            return err->code;
    }
    if (!pt->pools && !(pt->pools = calloc(OBS_MAX_POOLS, sizeof *pt->pools)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    const char *name;
    json_t *v;
    json_object_foreach(by, name, v) {
        uint64_t b;
        int i;
        snprintf(path, sizeof path, "mempool.by_pool.%.100s.bytes", name);
        if (jget(file, what, root, path, &b, err))
            return err->code;
        if ((i = pool_index(ob, name, err)) < 0)
            return i;
        pt->pools[i] = b;
    }
    return 0;
}

static int read_perf(rs_observe *ob, obs_point *pt, const char *file, json_t *root,
                     rs_err *err)
{
    const char *what = ob->is_mds ? "perf dump of an mds" : "perf dump of an osd";
    if (ob->is_mds) {
        uint64_t rss_kib;
        if (jget(file, what, root, "mds_mem.ino", &pt->items_perf, err) ||
            jget(file, what, root, "mds_mem.rss", &rss_kib, err))
            return err->code;
        pt->rss_perf = rss_kib * KIB;
        return 0;
    }
    uint64_t meta, data;
    if (jget(file, what, root, "bluestore-pricache.target_bytes", &pt->target_pc, err) ||
        jget(file, what, root, "bluestore-pricache.heap_bytes", &pt->pc_heap, err) ||
        jget(file, what, root, "bluestore-pricache.unmapped_bytes", &pt->pc_unmapped, err) ||
        jget(file, what, root, "bluestore-pricache.mapped_bytes", &pt->pc_mapped, err) ||
        jget(file, what, root, "bluestore-pricache:meta.committed_bytes", &meta, err) ||
        jget(file, what, root, "bluestore-pricache:data.committed_bytes", &data, err))
        return err->code;
    /* rssim's OSD limit: what meta + data may hold now (scripts/ceph-measure) */
    pt->limit_pc = meta + data;
    return 0;
}

static int read_cache_status(rs_observe *ob, obs_point *pt, const char *file, json_t *root,
                             rs_err *err)
{
    if (!ob->is_mds)
        return rs_fail(err, RS_EINPUT, "%s: cache_status is the MDS's; this is an osd capture",
                       file);
    return jget(file, "cache status of an mds", root, "pool.bytes", &pt->acc_cache, err);
}

static int read_sessions(rs_observe *ob, obs_point *pt, const char *file, json_t *root,
                         rs_err *err)
{
    if (!ob->is_mds)
        return rs_fail(err, RS_EINPUT, "%s: session_ls is the MDS's; this is an osd capture",
                       file);
    if (!json_is_array(root))
        return rs_fail(err, RS_EINPUT, "%s: not a JSON array of sessions (session ls)", file);
    size_t i;
    json_t *s;
    pt->caps = 0;
    json_array_foreach(root, i, s) {
        uint64_t c;
        if (!jnum(json_object_get(s, "num_caps"), &c))
            return rs_fail(err, RS_EINPUT, "%s: no count at '[%zu].num_caps' (session ls)",
                           file, i);
        pt->caps += c;
    }
    pt->sessions = json_array_size(root);
    return 0;
}

static int read_config(rs_observe *ob, obs_point *pt, const char *file, json_t *root,
                       rs_err *err)
{
    const char *key = ob->is_mds ? "mds_cache_memory_limit" : "osd_memory_target";
    json_t *v = json_object_get(root, key);
    if (!json_is_object(root) || !v)
        return rs_fail(err, RS_EINPUT, "%s: no field '%s' (config get %s)", file, key, key);
    const char *s = json_string_value(v);
    char *end;
    errno = 0;
    unsigned long long n = s ? strtoull(s, &end, 10) : 0;
    if (!s || !*s || *end || errno || *s == '-')
        return rs_fail(err, RS_EINPUT, "%s: field '%s' is not a byte count in a string", file,
                       key);
    pt->limit_cfg = n;
    return 0;
}

/* The next line of *cur (cut in place at its newline), NULL at the end. */
static char *next_line(char **cur)
{
    char *line = *cur;
    if (!line || !*line)
        return NULL;
    char *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *cur = nl + 1;
    } else {
        *cur = line + strlen(line);
    }
    return line;
}

/* tcmalloc's MALLOC: lines (gperftools DumpStats, level 1). */
static int read_heap(obs_point *pt, const char *file, char *text, rs_err *err)
{
    static const struct {
        const char *label;
        size_t off;
    } labels[] = {
        { "Bytes in use by application", offsetof(obs_point, tc_inuse) },
        { "Bytes in page heap freelist", offsetof(obs_point, tc_pageheap) },
        { "Bytes in central cache freelist", offsetof(obs_point, tc_central) },
        { "Bytes in transfer cache freelist", offsetof(obs_point, tc_transfer) },
        { "Bytes in thread cache freelists", offsetof(obs_point, tc_thread) },
        { "Bytes in malloc metadata", offsetof(obs_point, tc_meta) },
        { "Actual memory used (physical + swap)", offsetof(obs_point, tc_actual) },
        { "Bytes released to OS (aka unmapped)", offsetof(obs_point, tc_unmapped) },
        { "Virtual address space used", offsetof(obs_point, tc_virtual) },
    };
    enum { NLABELS = sizeof labels / sizeof labels[0] };
    int seen[NLABELS] = { 0 };
    for (char *cur = text, *line; (line = next_line(&cur));) {
        char *p = strstr(line, "MALLOC:");
        if (!p)
            continue;
        p += 7;
        while (*p == ' ' || *p == '+' || *p == '=')
            p++;
        if (*p < '0' || *p > '9')
            continue;
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno)
            continue;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == '(') { /* "(    1.2 MiB)" */
            p = strchr(p, ')');
            if (!p)
                continue;
            p++;
            while (*p == ' ')
                p++;
        }
        for (int i = 0; i < NLABELS; i++)
            if (!strncmp(p, labels[i].label, strlen(labels[i].label))) {
                *(uint64_t *)((char *)pt + labels[i].off) = v;
                seen[i] = 1;
            }
    }
    for (int i = 0; i < NLABELS; i++)
        if (!seen[i])
            return rs_fail(err, RS_EINPUT, "%s: no 'MALLOC: N (...) %s' line (tcmalloc's "
                           "heap stats)%s", file, labels[i].label,
                           i == 0 ? "; a daemon without tcmalloc answers 'not using "
                                    "tcmalloc': leave heap_stats out of its captures" : "");
    return 0;
}

static int read_proc_status(obs_point *pt, const char *file, char *text, rs_err *err)
{
    int have_rss = 0;
    for (char *cur = text, *line; (line = next_line(&cur));) {
        unsigned long long v;
        char unit[8];
        if (sscanf(line, "VmRSS: %llu %7s", &v, unit) == 2 && !strcmp(unit, "kB")) {
            pt->rss_proc = v * KIB;
            have_rss = 1;
        } else if (sscanf(line, "VmHWM: %llu %7s", &v, unit) == 2 && !strcmp(unit, "kB")) {
            pt->vmhwm = v * KIB;
        }
    }
    if (!have_rss)
        return rs_fail(err, RS_EINPUT, "%s: no 'VmRSS: N kB' line (/proc/PID/status)", file);
    return 0;
}

static int read_ps(obs_point *pt, const char *file, char *text, rs_err *err)
{
    int n = 0;
    for (char *cur = text, *line; (line = next_line(&cur));) {
        char *p = line, *end;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || (n == 0 && !strncmp(p, "RSS", 3) && !p[3 + strspn(p + 3, " \t\r")]))
            continue; /* the header */
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\r')
            end++;
        if (end == p || *end || errno || n)
            return rs_fail(err, RS_EINPUT, "%s: '%.40s' is not one RSS in KiB (ps -o rss -p "
                           "PID)", file, line);
        pt->rss_ps = v * KIB;
        n++;
    }
    if (!n)
        return rs_fail(err, RS_EINPUT, "%s: no RSS (ps -o rss -p PID)", file);
    return 0;
}

/* The point at capture time t, inserted in time order when new. */
static obs_point *point_at(rs_observe *ob, int64_t t, rs_err *err)
{
    size_t lo = 0, hi = ob->npts;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ob->pts[mid].t_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ob->npts && ob->pts[lo].t_ns == t)
        return &ob->pts[lo];
    if (ob->npts == RS_OBSERVE_MAX_SAMPLES) {
        rs_fail(err, RS_EINPUT, "more than %d capture times", RS_OBSERVE_MAX_SAMPLES);
        return NULL;
    }
    if (ob->npts == ob->cap) {
        size_t cap = ob->cap ? ob->cap * 2 : 256;
        obs_point *p = realloc(ob->pts, cap * sizeof *p);
        if (!p) {
            rs_fail(err, RS_ENOMEM, "out of memory");
            return NULL;
        }
        ob->pts = p;
        ob->cap = cap;
    }
    memmove(&ob->pts[lo + 1], &ob->pts[lo], (ob->npts - lo) * sizeof *ob->pts);
    ob->npts++;
    memset(&ob->pts[lo], 0, sizeof ob->pts[lo]);
    ob->pts[lo].t_ns = t;
    return &ob->pts[lo];
}

static int add_file(rs_observe *ob, const char *path, rs_err *err)
{
    int64_t t = 0;
    int what = 0, rc;
    char *buf = NULL;
    size_t len = 0;

    if (ob->nfiles == RS_OBSERVE_MAX_FILES)
        return rs_fail(err, RS_EINPUT, "more than %d capture files", RS_OBSERVE_MAX_FILES);
    if ((rc = parse_name(path, &t, &what, err)) || (rc = read_all(path, &buf, &len, err)))
        return rc;
    obs_point *pt = point_at(ob, t, err);
    if (!pt) {
        free(buf);
        return err->code;
    }
    if (pt->have & (1u << what)) {
        free(buf);
        return rs_fail(err, RS_EINPUT, "%s: a second %s at the same time (first '%s')", path,
                       what_names[what], pt->first_file);
    }
    if (!pt->have)
        snprintf(pt->first_file, sizeof pt->first_file, "%s", base_name(path));
    if (what == W_HEAP || what == W_PROC || what == W_PS) {
        rc = what == W_HEAP ? read_heap(pt, path, buf, err)
             : what == W_PROC ? read_proc_status(pt, path, buf, err)
                              : read_ps(pt, path, buf, err);
    } else {
        json_error_t jerr;
        json_t *root = json_loadb(buf, len, 0, &jerr);
        if (!root) {
            rc = rs_fail(err, RS_EINPUT, "%s:%d:%d: not JSON: %s", path, jerr.line, jerr.column,
                         jerr.text);
        } else {
            switch (what) {
            case W_MEMPOOLS: rc = read_mempools(ob, pt, path, root, err); break;
            case W_PERF: rc = read_perf(ob, pt, path, root, err); break;
            case W_CACHE: rc = read_cache_status(ob, pt, path, root, err); break;
            case W_SESSIONS: rc = read_sessions(ob, pt, path, root, err); break;
            default: rc = read_config(ob, pt, path, root, err); break;
            }
            json_decref(root);
        }
    }
    free(buf);
    if (!rc) {
        pt->have |= 1u << what;
        ob->nfiles++;
    }
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int rs_observe_add(rs_observe *ob, const char *path, rs_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return rs_fail(err, RS_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return add_file(ob, path, err);
    DIR *d = opendir(path);
    if (!d)
        return rs_fail(err, RS_EIO, "cannot read folder '%s': %s", path, strerror(errno));
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (n == RS_OBSERVE_MAX_FILES) {
            rc = rs_fail(err, RS_EINPUT, "%s: more than %d files", path, RS_OBSERVE_MAX_FILES);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) {
                rc = rs_fail(err, RS_ENOMEM, "out of memory");
                break;
            }
            names = nn;
        }
        size_t l = strlen(path) + strlen(de->d_name) + 2;
        if (!(names[n] = malloc(l))) {
            rc = rs_fail(err, RS_ENOMEM, "out of memory");
            break;
        }
        snprintf(names[n++], l, "%s/%s", path, de->d_name);
    }
    closedir(d);
    if (!rc && !n)
        rc = rs_fail(err, RS_EINPUT, "%s: no capture files", path);
    if (!rc)
        qsort(names, n, sizeof *names, cmp_str); /* deterministic order of errors */
    for (size_t i = 0; i < n && !rc; i++)
        rc = add_file(ob, names[i], err);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* ---- the run ---- */

static void time_text(int64_t t_ns, char *buf, size_t n)
{
    snprintf(buf, n, "%lld.%09lld", (long long)(t_ns / 1000000000), (long long)(t_ns % 1000000000));
}

int rs_observe_result(rs_observe *ob, double steady_from, rs_result *res, uint64_t *r_limit,
                      double *r_t0, rs_err *err)
{
    int rc;
    if (!ob->npts)
        return rs_fail(err, RS_EINPUT, "no captures");
    /* the limit: the config_get in force at each time (the first before it) */
    uint64_t limit = 0;
    for (size_t i = 0; i < ob->npts && !limit; i++)
        if (ob->pts[i].have & (1u << W_CONFIG))
            limit = ob->pts[i].limit_cfg;
    *r_limit = limit;
    int64_t t0 = ob->pts[0].t_ns;
    *r_t0 = (double)t0 / 1e9;
    rs_run_totals tot = { 0 };
    for (size_t i = 0; i < ob->npts; i++) {
        const obs_point *pt = &ob->pts[i];
        char tt[32];
        unsigned h = pt->have;
        rs_sample s = { .t_ns = (uint64_t)(pt->t_ns - t0) };
        time_text(pt->t_ns, tt, sizeof tt);
        if (h & (1u << W_PROC))
            s.rss_bytes = pt->rss_proc;
        else if (h & (1u << W_PS))
            s.rss_bytes = pt->rss_ps;
        else if (ob->is_mds && (h & (1u << W_PERF)))
            s.rss_bytes = pt->rss_perf;
        else
            return rs_fail(err, RS_EINPUT, "capture at %s ('%s'): no RSS (proc_status, ps_rss%s)",
                           tt, pt->first_file, ob->is_mds ? " or perf_dump" : "");
        if (h & (1u << W_MEMPOOLS))
            s.accounted_bytes = pt->acc_mp;
        else if (h & (1u << W_CACHE))
            s.accounted_bytes = pt->acc_cache;
        else
            return rs_fail(err, RS_EINPUT, "capture at %s ('%s'): no accounted bytes "
                           "(dump_mempools%s)", tt, pt->first_file,
                           ob->is_mds ? " or cache_status" : "");
        if (h & (1u << W_CONFIG))
            limit = pt->limit_cfg;
        s.limit_bytes = ob->is_mds ? limit
                        : (h & (1u << W_PERF)) ? pt->limit_pc
                        : res->nsamples ? res->samples[res->nsamples - 1].limit_bytes : 0;
        s.items_count = ob->is_mds ? pt->items_perf : pt->items_mp;
        if (h & (1u << W_HEAP)) {
            s.allocated_bytes = pt->tc_inuse;
            s.pageheap_free_bytes = pt->tc_pageheap;
            s.central_cached_bytes = pt->tc_central;
            s.transfer_cached_bytes = pt->tc_transfer;
            s.thread_cached_bytes = pt->tc_thread;
            s.cached_bytes = pt->tc_central + pt->tc_transfer + pt->tc_thread;
            s.metadata_bytes = pt->tc_meta;
            s.mapped_bytes = pt->tc_actual;
            s.unmapped_bytes = pt->tc_unmapped;
            s.heap_bytes = pt->tc_virtual;
        } else if (!ob->is_mds && (h & (1u << W_PERF))) {
            s.heap_bytes = pt->pc_heap;
            s.unmapped_bytes = pt->pc_unmapped;
            s.mapped_bytes = pt->pc_mapped;
        }
        s.x = s.rss_bytes ? 1.0 - (double)s.accounted_bytes / (double)s.rss_bytes : 0.0;
        s.overshoot = s.limit_bytes ? (double)s.rss_bytes / (double)s.limit_bytes : 0.0;
        if (s.accounted_bytes > tot.accounted_peak_bytes)
            tot.accounted_peak_bytes = s.accounted_bytes;
        if (s.items_count > tot.items_peak_count)
            tot.items_peak_count = s.items_count;
        if ((rc = rs_result_add_sample(res, &s, err)))
            return rc;
    }
    uint64_t end_ns = res->samples[res->nsamples - 1].t_ns;
    tot.limit_bytes = res->samples[res->nsamples - 1].limit_bytes;
    if ((rc = rs_result_metrics(res, &tot, end_ns, steady_from, 0, err)))
        return rc;

    /* the observation's own metrics, over the steady samples / all */
    uint64_t from = (uint64_t)((double)end_ns * steady_from);
    double caps = 0, sess = 0, caps_peak = 0, sess_peak = 0, hwm = 0;
    size_t nsess = 0;
    double psum[OBS_MAX_POOLS] = { 0 }, ppeak[OBS_MAX_POOLS] = { 0 };
    size_t pn = 0;
    for (size_t i = 0; i < ob->npts; i++) {
        const obs_point *pt = &ob->pts[i];
        int steady = (uint64_t)(pt->t_ns - t0) >= from;
        if (pt->vmhwm > hwm)
            hwm = (double)pt->vmhwm;
        if (pt->have & (1u << W_SESSIONS)) {
            caps_peak = fmax(caps_peak, (double)pt->caps);
            sess_peak = fmax(sess_peak, (double)pt->sessions);
            if (steady) {
                caps += (double)pt->caps;
                sess += (double)pt->sessions;
                nsess++;
            }
        }
        if (pt->pools) {
            for (int k = 0; k < ob->npools; k++) {
                ppeak[k] = fmax(ppeak[k], (double)pt->pools[k]);
                if (steady)
                    psum[k] += (double)pt->pools[k];
            }
            pn += steady;
        }
    }
    if (nsess) {
        if ((rc = rs_result_set_metric(res, "caps_steady", caps / (double)nsess, err)) ||
            (rc = rs_result_set_metric(res, "caps_peak", caps_peak, err)) ||
            (rc = rs_result_set_metric(res, "sessions_steady", sess / (double)nsess, err)) ||
            (rc = rs_result_set_metric(res, "sessions_peak", sess_peak, err)) ||
            (rc = rs_result_set_metric(res, "caps_per_session_steady",
                                       sess > 0 ? caps / sess : NAN, err)))
            return rc;
    }
    if (hwm > 0 && (rc = rs_result_set_metric(res, "vmhwm_peak_bytes", hwm, err)))
        return rc;
    for (int k = 0; k < ob->npools; k++) {
        char name[48];
        if (ppeak[k] == 0)
            continue; /* an unused pool says nothing */
        snprintf(name, sizeof name, "mp_%.32s_steady", ob->pool_names[k]);
        if ((rc = rs_result_set_metric(res, name, pn ? psum[k] / (double)pn : NAN, err)))
            return rc;
        snprintf(name, sizeof name, "mp_%.34s_peak", ob->pool_names[k]);
        if ((rc = rs_result_set_metric(res, name, ppeak[k], err)))
            return rc;
    }
    return 0;
}
