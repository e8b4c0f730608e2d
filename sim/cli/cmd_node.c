/*
 * cmd_node.c — `rssim node --member preset=P,trace=T[,count=N][,phase=D]
 * [,KEY=VALUE...] ... [--ram SIZE] [--headroom PCT] [--set K=V] [--jobs N]`:
 * several daemons on one node (N OSDs, an MDS and M OSDs) and what they
 * need together.
 *
 * Each member is one run (its own allocator, cache and trace), replayed
 * once, or reused when a done run with the same trace and params is in the
 * database; its count daemons replay that run, copy i starting i x phase
 * later on the node's clock (sim/node.h).  The runs are created in member
 * order by this process (so run ids do not depend on --jobs), replayed up
 * to --jobs side by side in worker processes (runner.c, as `rssim plan`'s
 * runs: a member's error keeps its code), then their samples are read
 * back and summed on one clock (the smallest sample_interval of the
 * members).  The node, its daemons and its total series are stored (store
 * schema 5) and printed: steady, p50, p99 and the peak of the sum against
 * RAM less the headroom, the sum of the daemons' own peaks beside it, and
 * each member's share at the node's peak.
 *
 * Exit status: 0 (fits, or no --ram), 3 (does not fit), 2 bad input, 1 other.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../traces/sample.h"
#include "../../traces/trace.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../node.h"
#include "../query.h"
#include "../registry.h"
#include "../run.h"
#include "../store.h"
#include "cli.h"

#define MAX_MEMBERS 16
#define MAX_MEMBER_SETS 32
#define MAX_SETS 256
#define MAX_JOBS 256
#define MAX_COUNT 1024
#define GiB (1024.0 * 1024 * 1024)
#define MiB (1024.0 * 1024)

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim node --member preset=P,trace=T[,count=N][,phase=DUR][,KEY=VALUE...]\n"
            "                  [--member ...] [--ram SIZE] [--headroom PCT] [--set K=V ...]\n"
            "                  [--jobs N] [--db PATH]\n\n"
            "Several daemons on one node: each member is a run (its own allocator, cache\n"
            "and trace) that count daemons replay, copy i starting i x phase later; the\n"
            "node's RSS is their sum at each instant of one clock.  Prints the node's\n"
            "steady, p50, p99 and peak RSS against RAM less the headroom, the sum of the\n"
            "daemons' own peaks (peaks need not coincide) and each member's share.\n\n"
            "  -m, --member SPEC   preset=P,trace=T (required), count=N (1..%d, default 1),\n"
            "                      phase=DUR (default 0: in step), any other KEY=VALUE is\n"
            "                      a run key for this member only (repeatable, up to %d)\n"
            "  -r, --ram SIZE      the node's RAM; with it, exit 3 when the peak does not fit\n"
            "  -H, --headroom PCT  RAM kept free, e.g. 10%% or 0.1 (default 10%%)\n"
            "  -s, --set K=V       a run key for every member (before the member's own)\n"
            "  -j, --jobs N        worker processes replaying the members (default 1)\n"
            "      --db PATH       SQLite database (default %s)\n"
            "  -h, --help          this help\n",
            MAX_COUNT, MAX_MEMBERS, rs_cli_default_db());
}

typedef struct member {
    char *spec;                 /* a copy of the --member text, cut into the fields */
    const char *preset, *trace;
    char *sets[MAX_SETS + MAX_MEMBER_SETS];
    int nsets;
    uint32_t count;
    uint64_t phase_ns;
    rs_config *cfg;
    char sha[65];
    char hash[17];              /* rs_config_hash of cfg */
    int64_t run_id;
    int reused;                 /* the run was done already */
    int shared;                 /* the same run as an earlier member's */
    rs_node_point *pts;
    size_t npts, cap;
} member;

static void fmt_bytes(double b, char *buf, size_t cap)
{
    if (fabs(b) >= GiB)
        snprintf(buf, cap, "%.2f GiB", b / GiB);
    else
        snprintf(buf, cap, "%.1f MiB", b / MiB);
}

/* Cut "preset=P,trace=T,count=8,osd_memory_target=3G" into m. */
static int member_parse(member *m, int index, const char *text, char *const *sets, int nsets,
                        rs_err *err)
{
    m->count = 1;
    if (!(m->spec = strdup(text)))
        return rs_fail(err, RS_ENOMEM, "out of memory");
    for (int i = 0; i < nsets; i++)
        m->sets[m->nsets++] = sets[i];
    for (char *f = m->spec, *next; f; f = next) {
        char *comma = strchr(f, ',');
        next = comma ? comma + 1 : NULL;
        if (comma)
            *comma = '\0';
        char *eq = strchr(f, '=');
        if (!eq || eq == f)
            return rs_fail(err, RS_EINPUT, "--member %d: expected KEY=VALUE, got '%s'", index, f);
        *eq = '\0';
        const char *k = f, *v = eq + 1;
        if (!strcmp(k, "preset")) {
            m->preset = v;
        } else if (!strcmp(k, "trace")) {
            m->trace = v;
        } else if (!strcmp(k, "count")) {
            char *end;
            long c = strtol(v, &end, 10);
            if (*end || !*v || c < 1 || c > MAX_COUNT)
                return rs_fail(err, RS_EINPUT, "--member %d: count: expected 1..%d, got '%s'",
                               index, MAX_COUNT, v);
            m->count = (uint32_t)c;
        } else if (!strcmp(k, "phase")) {
            if (rs_parse_duration(v, &m->phase_ns))
                return rs_fail(err, RS_EINPUT, "--member %d: phase: expected a duration such "
                               "as 500ms, got '%s'", index, v);
        } else {
            if (m->nsets == MAX_SETS + MAX_MEMBER_SETS)
                return rs_fail(err, RS_EINPUT, "--member %d: more than %d keys", index,
                               MAX_MEMBER_SETS);
            *eq = '='; /* a run key: handed to the config as "key=value" */
            m->sets[m->nsets++] = f;
        }
    }
    if (!m->preset || !m->trace)
        return rs_fail(err, RS_EINPUT, "--member %d: needs preset= and trace=", index);
    return 0;
}

static int collect(void *ctx, int64_t run_id, const rs_sample *smp, rs_err *err)
{
    member *m = ctx;
    (void)run_id;
    if (m->npts == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        rs_node_point *p = realloc(m->pts, cap * sizeof *p);
        if (!p)
            return rs_fail(err, RS_ENOMEM, "out of memory reading run %lld",
                           (long long)m->run_id);
        m->pts = p;
        m->cap = cap;
    }
    m->pts[m->npts++] = (rs_node_point){
        .t_ns = smp->t_ns, .rss_bytes = smp->rss_bytes, .accounted_bytes = smp->accounted_bytes,
        .resident_bytes = smp->resident_bytes, .base_bytes = smp->base_bytes,
    };
    return 0;
}

/* Replay the members that need it, up to jobs side by side (runner.c:
 * every run ends done or failed with its reason, a worker's error keeps
 * its code, and after a failure no further member starts).  *st is open
 * before and after.  A failure names its member. */
static int replay_all(rs_store **st, const char *db, member *ms, int n, int jobs, rs_err *err)
{
    rs_cli_job js[MAX_MEMBERS];
    int of[MAX_MEMBERS], nj = 0;

    for (int i = 0; i < n; i++)
        if (!ms[i].reused && !ms[i].shared) {
            js[nj] = (rs_cli_job){ .run_id = ms[i].run_id, .trace = ms[i].trace, .cfg = ms[i].cfg };
            of[nj++] = i;
        }
    int rc = rs_cli_execute_runs(st, db, js, nj, jobs, err);
    for (int j = 0; rc && j < nj; j++) /* jobs start in order: the first failed is err's */
        if (js[j].rc) {
            rs_err_prefix(err, "--member %d (run %lld)", of[j] + 1, js[j].run_id);
            break;
        }
    return rc;
}

int cmd_node(int argc, char **argv)
{
    static const struct option opts[] = {
        { "member", required_argument, NULL, 'm' }, { "ram", required_argument, NULL, 'r' },
        { "headroom", required_argument, NULL, 'H' }, { "set", required_argument, NULL, 's' },
        { "jobs", required_argument, NULL, 'j' },   { "db", required_argument, NULL, 'd' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    const char *texts[MAX_MEMBERS], *db = NULL, *ram_s = NULL;
    char *sets[MAX_SETS];
    int ntexts = 0, nsets = 0, jobs = 1, c;
    double headroom = 0.10;
    uint64_t ram = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "m:r:H:s:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if (ntexts == MAX_MEMBERS)
                return rs_cli_usage_error("node", "more than %d --member options", MAX_MEMBERS);
            texts[ntexts++] = optarg;
            break;
        case 'r': ram_s = optarg; break;
        case 'H':
            if (rs_cli_parse_fraction(optarg, &headroom) || headroom < 0 || headroom >= 1)
                return rs_cli_usage_error("node", "--headroom: expected 0%% .. below 100%%, got "
                                          "'%s'", optarg);
            break;
        case 's':
            if (nsets == MAX_SETS)
                return rs_cli_usage_error("node", "more than %d --set options", MAX_SETS);
            sets[nsets++] = optarg;
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > MAX_JOBS)
                return rs_cli_usage_error("node", "--jobs: expected 1..%d, got '%s'", MAX_JOBS,
                                          optarg);
            jobs = (int)v;
            break;
        }
        case 'd': db = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc)
        return rs_cli_usage_error("node", "unexpected argument '%s'", argv[optind]);
    if (!ntexts)
        return rs_cli_usage_error("node", "expected at least one --member");
    if (ram_s && (rs_parse_size(ram_s, &ram) || ram == 0))
        return rs_cli_usage_error("node", "--ram: expected a size such as 64G, got '%s'", ram_s);
    if (!db)
        db = rs_cli_default_db();

    member ms[MAX_MEMBERS];
    rs_err err = { 0 };
    rs_store *st = NULL;
    rs_node_result nr = { 0 };
    char spec[8192];
    size_t used = 0;
    int rc = 0, n = ntexts, status = 0;
    uint64_t interval_ns = UINT64_MAX, daemons = 0;
    double steady_from = 0;

    memset(ms, 0, sizeof ms);
    spec[0] = '\0';
    for (int i = 0; i < nsets && used < sizeof spec; i++)
        used += (size_t)snprintf(spec + used, sizeof spec - used, "%s--set %s", used ? " " : "",
                                 sets[i]);
    for (int i = 0; i < n && !rc; i++) {
        member *m = &ms[i];
        if (used < sizeof spec)
            used += (size_t)snprintf(spec + used, sizeof spec - used, "%s--member %s",
                                     used ? " " : "", texts[i]);
        if ((rc = member_parse(m, i + 1, texts[i], sets, nsets, &err)))
            break;
        if ((rc = rs_cli_build_config(m->preset, m->sets, m->nsets, &m->cfg, &err)) ||
            (rc = rs_cli_check_input(m->trace, &err))) {
            rs_err_prefix(&err, "--member %d", i + 1);
            break;
        }
        /* a trace of another daemon kind is bad input, refused before any run */
        const void *dops;
        rs_trace *tr = NULL;
        if ((rc = rs_registry_get(&rs_reg_daemon, rs_config_string(m->cfg, "daemon"), &dops,
                                  &err)) ||
            (rc = rs_trace_open(&tr, m->trace, &err))) {
            rs_err_prefix(&err, "--member %d", i + 1);
            break;
        }
        const rs_daemon_ops *dop = dops;
        if (strcmp(rs_trace_daemon(tr), dop->trace_daemon) != 0)
            rc = rs_fail(&err, RS_EINPUT, "--member %d: %s: trace is for daemon '%s' but preset "
                         "'%s' replays '%s' traces", i + 1, m->trace, rs_trace_daemon(tr),
                         m->preset, dop->trace_daemon);
        rs_trace_close(tr);
        if (rc)
            break;
        uint64_t si = rs_config_duration_ns(m->cfg, "sample_interval");
        if (si < interval_ns)
            interval_ns = si;
        double sf = rs_config_double(m->cfg, "steady_from");
        if (sf > steady_from)
            steady_from = sf;
        daemons += m->count;
    }
    if (rc)
        goto out;
    if ((rc = rs_cli_mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)))
        goto out;
    /* the traces' identities: remembered in the store, or hashed once here */
    for (int i = 0; i < n && !rc; i++)
        if ((rc = rs_store_trace_sha256(st, ms[i].trace, ms[i].sha, &err)))
            rs_err_prefix(&err, "--member %d", i + 1);
    /* the runs, in member order: reused, or begun here (ids independent of --jobs) */
    for (int i = 0; i < n && !rc; i++) {
        member *m = &ms[i];
        char label[256];
        snprintf(m->hash, sizeof m->hash, "%016llx", (unsigned long long)rs_config_hash(m->cfg));
        for (int j = 0; j < i && !m->run_id; j++)
            if (!strcmp(ms[j].sha, m->sha) && !strcmp(ms[j].hash, m->hash)) {
                m->run_id = ms[j].run_id; /* the same daemon run: replayed once */
                m->reused = ms[j].reused;
                m->shared = 1;
            }
        if (m->shared)
            continue;
        if ((rc = rs_query_run_find_done(st, m->sha, m->hash, &m->run_id, &err)))
            break;
        m->reused = m->run_id != 0;
        if (m->reused)
            continue;
        snprintf(label, sizeof label, "node member %d: %u x %s", i + 1, m->count, m->preset);
        rs_run_meta meta = {
            .kind = "predicted", .trace_path = m->trace, .trace_sha256 = m->sha,
            .preset = m->preset, .seed = (uint64_t)rs_config_int(m->cfg, "seed"), .label = label,
            .sweep_id = 0, .point_index = -1,
        };
        rc = rs_store_run_begin(st, &meta, m->cfg, &m->run_id, &err);
    }
    if (rc || (rc = replay_all(&st, db, ms, n, jobs, &err)))
        goto out;
    static const char *const cols[] = { "t_ns", "rss_bytes", "accounted_bytes", "resident_bytes",
                                        "base_bytes" };
    rs_node_member nm[MAX_MEMBERS];
    for (int i = 0; i < n && !rc; i++) {
        rs_query_scope scope = { .run_id = ms[i].run_id };
        rc = rs_query_samples(st, &scope, cols, sizeof cols / sizeof cols[0], collect, &ms[i], &err);
        nm[i] = (rs_node_member){ .pts = ms[i].pts, .npts = ms[i].npts, .count = ms[i].count,
                                  .phase_ns = ms[i].phase_ns };
    }
    if (rc || (rc = rs_node_sum(nm, (size_t)n, interval_ns, steady_from, &nr, &err)))
        goto out;

    /* the report */
    char a[32], b[32], c2[32], d[32], verdict[512] = "";
    double budget = (double)ram * (1 - headroom);
    int fits = !ram || (double)nr.rss_peak_bytes <= budget;
    fmt_bytes((double)nr.rss_peak_bytes, a, sizeof a);
    if (ram) {
        fmt_bytes((double)ram, b, sizeof b);
        fmt_bytes(budget, c2, sizeof c2);
        snprintf(verdict, sizeof verdict, "%s: %llu daemons peak at %s together, %s %s (RAM %s "
                 "less %.0f%% headroom)", fits ? "fits" : "does NOT fit",
                 (unsigned long long)daemons, a, fits ? "within" : "over", c2, b, headroom * 100);
    }
    /* metrics */
    enum { NODE_METRICS = 10 };
    const char *names[NODE_METRICS + 2 * MAX_MEMBERS];
    double values[NODE_METRICS + 2 * MAX_MEMBERS];
    char member_names[2 * MAX_MEMBERS][48];
    size_t nmet = 0;
#define MET(nm_, v_) (names[nmet] = (nm_), values[nmet++] = (double)(v_))
    MET("daemons_count", daemons);
    MET("rss_steady_bytes", nr.rss_steady_bytes);
    MET("rss_p50_bytes", nr.rss_p50_bytes);
    MET("rss_p99_bytes", nr.rss_p99_bytes);
    MET("rss_peak_bytes", nr.rss_peak_bytes);
    MET("rss_peak_t_ns", nr.rss_peak_t_ns);
    MET("sum_of_peaks_bytes", nr.sum_of_peaks_bytes);
    MET("ram_bytes", ram ? (double)ram : NAN);
    MET("budget_bytes", ram ? budget : NAN);
    MET("fits", ram ? (double)fits : NAN);
    for (int i = 0; i < n; i++) {
        snprintf(member_names[2 * i], sizeof member_names[0], "member%d_peak_bytes", i + 1);
        snprintf(member_names[2 * i + 1], sizeof member_names[0], "member%d_at_node_peak_bytes",
                 i + 1);
        MET(member_names[2 * i], nr.member_peak_bytes[i]);
        MET(member_names[2 * i + 1], nr.member_at_peak_bytes[i]);
    }
#undef MET
    size_t ncopies = 0;
    rs_store_node_copy *copies = calloc((size_t)daemons, sizeof *copies);
    if (!copies) {
        rc = rs_fail(&err, RS_ENOMEM, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++)
        for (uint32_t k = 0; k < ms[i].count; k++)
            copies[ncopies++] = (rs_store_node_copy){ .member = i, .copy = k,
                                                      .run_id = ms[i].run_id,
                                                      .offset_ns = k * ms[i].phase_ns,
                                                      .reused = ms[i].reused };
    rs_store_node_meta meta = { .spec = spec, .ram_bytes = (int64_t)ram, .headroom = headroom,
                                .verdict = ram ? verdict : NULL };
    int64_t node_id = 0;
    rc = rs_store_node_write(st, &meta, copies, ncopies, &nr, names, values, nmet, &node_id, &err);
    free(copies);
    if (rc)
        goto out;

    printf("node %lld: %llu daemons, %d member%s, clock every %.0f ms to %.1f s\n",
           (long long)node_id, (unsigned long long)daemons, n, n > 1 ? "s" : "",
           (double)interval_ns / 1e6, (double)nr.end_ns / 1e9);
    int sampled = 0;
    for (int i = 0; i < n; i++) {
        long long k = rs_run_sample_k(ms[i].cfg);
        double share = nr.rss_peak_bytes ? (double)nr.member_at_peak_bytes[i] /
                                               (double)nr.rss_peak_bytes : 0;
        fmt_bytes((double)nr.member_at_peak_bytes[i], b, sizeof b);
        fmt_bytes((double)nr.member_peak_bytes[i], c2, sizeof c2);
        printf("member %d: %u x %s on %s (run %lld, %s)", i + 1, ms[i].count, ms[i].preset,
               ms[i].trace, (long long)ms[i].run_id,
               ms[i].shared ? "as an earlier member" : ms[i].reused ? "reused" : "replayed");
        if (ms[i].phase_ns)
            printf(", copies %.0f ms apart", (double)ms[i].phase_ns / 1e6);
        if (k > 1) {
            printf(", sampled 1/%lld of directories", k);
            sampled = 1;
        }
        printf(": %s at the node's peak (%.0f%%), its own peak %s\n", b, share * 100, c2);
    }
    if (sampled)
        printf("sampled members: %s; their numbers, and the node's, are scaled to the whole "
               "namespace\n", RS_SAMPLE_ERROR_NOTE);
    fmt_bytes(nr.rss_steady_bytes, b, sizeof b);
    fmt_bytes((double)nr.rss_p50_bytes, c2, sizeof c2);
    fmt_bytes((double)nr.rss_p99_bytes, d, sizeof d);
    printf("node RSS: steady %s  p50 %s  p99 %s  peak %s at %.2f s\n", b, c2, d, a,
           (double)nr.rss_peak_t_ns / 1e9);
    fmt_bytes((double)nr.sum_of_peaks_bytes, b, sizeof b);
    printf("sum of the daemons' own peaks: %s (%s)\n", b,
           nr.sum_of_peaks_bytes > nr.rss_peak_bytes ? "their peaks do not coincide"
                                                     : "their peaks coincide");
    if (ram)
        printf("%s\n", verdict);
    printf("stored as node %lld in %s (sqlite3: node_samples, node_members, node_metrics)\n",
           (long long)node_id, db);
    status = fits ? 0 : 3;
out:
    rs_node_result_release(&nr);
    rs_store_close(st);
    for (int i = 0; i < n; i++) {
        free(ms[i].spec);
        free(ms[i].pts);
        rs_config_free(ms[i].cfg);
    }
    return rc ? rs_cli_report(&err) : status;
}
