/*
 * cmd_validate.c — `rssim validate TRACE --alloc A`: the model against the
 * real allocator on the same allocations.
 *
 *  1. predicted: replay TRACE with the model of A (a kv trace with its
 *     preset, an alloc trace with preset alloc-replay), stored as a run of
 *     kind predicted; for a daemon trace the run's exact malloc/free
 *     sequence is emitted as an allocation trace beside the database;
 *  2. measured: rssim-real (next to this program) replays that allocation
 *     trace with the real A — glibc, or Debian's jemalloc/tcmalloc through
 *     LD_PRELOAD — sampling /proc/self/statm and A's own stats at the same
 *     virtual times, stored as a run of kind measured;
 *  3. the two are joined on t_ns and compared per column: the mean and max
 *     of the per-sample error, and the steady-state error (means over the
 *     second half).  Both sides are taken relative to their first common
 *     sample (t = 0, before any allocation): the real allocator's start-up
 *     state is in rssim-real's baseline, the model's initial metadata in its
 *     first sample, and neither is the workload's doing.  A sample's error
 *     is |predicted − measured| relative to max(measured, 5 % of the
 *     column's measured peak), so near-empty early samples cannot dominate.  The numbers are printed and stored as
 *     metrics of the measured run (validate_<column>_{mean,max,steady}_error_pct,
 *     predicted_run_id); `rssim plot validate --run M` draws both.
 * rssim-real replays as fast as it can, not in virtual time, so anything
 * the real allocator does on the wall clock cannot be compared: for
 * jemalloc, time-based decay is switched off on both sides
 * (MALLOC_CONF=dirty_decay_ms:-1,muzzy_decay_ms:-1 and jemalloc_purge=never)
 * unless the caller sets jemalloc_purge.  Explicit releases (RELEASE
 * records: arena purge) still happen on both sides.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../models/alloc/alloc.h"
#include "../../traces/trace.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../registry.h"
#include "../store.h"
#include "cli.h"

#define MAX_SETS 256

/* Columns that can be compared, in the order printed; one is compared when
 * both the model and the real library report it (their ops tables say). */
static const struct column {
    const char *name;
    uint32_t field; /* RS_ALLOC_F_* */
} columns[] = {
    { "resident_bytes", RS_ALLOC_F_RESIDENT },
    { "allocated_bytes", RS_ALLOC_F_ALLOCATED },
    { "mapped_bytes", RS_ALLOC_F_MAPPED },
    { "cached_bytes", RS_ALLOC_F_CACHED },
    { "thread_cached_bytes", RS_ALLOC_F_THREAD_CACHED },
    { "central_cached_bytes", RS_ALLOC_F_CENTRAL_CACHED },
    { "transfer_cached_bytes", RS_ALLOC_F_TRANSFER_CACHED },
    { "pageheap_free_bytes", RS_ALLOC_F_PAGEHEAP_FREE },
};

/* The allocator models that have a real library, "a|b|c", into buf. */
static const char *real_names(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rs_reg_alloc.count && n < cap; i++) {
        const rs_alloc_ops *a = rs_reg_alloc.entries[i];
        if (a->real)
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? "|" : "", a->name);
    }
    return buf;
}

static void usage(FILE *f)
{
    char names[256];
    real_names(names, sizeof names);
    fprintf(f,
            "usage: rssim validate TRACE --alloc %s [--preset P]\n"
            "                      [--set key=value ...] [--threads N] [--db PATH]\n\n"
            "Replay TRACE with the allocator model (predicted) and its allocations with the\n"
            "real allocator (measured, by rssim-real), store both runs, and print their\n"
            "error per column: mean and max per-sample error and steady-state error (%%).\n"
            "A kv trace needs --preset; an alloc trace uses preset alloc-replay.\n\n"
            "  -a, --alloc A     the allocator: %s\n"
            "  -p, --preset P    preset of the predicted run (models/presets/P.conf)\n"
            "  -s, --set K=V     override one parameter (repeatable)\n"
            "  -t, --threads N   rssim-real worker threads (default: the trace's)\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -h, --help        this help\n",
            names, names, rs_cli_default_db());
}

/* rssim-real beside this program. */
static int real_path(char *r_path, size_t cap, rs_err *err)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return rs_fail(err, RS_EIO, "cannot find this program: %s", strerror(errno));
    self[n] = '\0';
    if ((size_t)snprintf(r_path, cap, "%s/rssim-real", dirname(self)) >= cap)
        return rs_fail(err, RS_EIO, "path too long");
    if (access(r_path, X_OK) != 0)
        return rs_fail(err, RS_EIO, "cannot run '%s' (built beside rssim): %s", r_path, strerror(errno));
    return 0;
}

/* Run rssim-real; its run id from its "run N done" line. */
static int run_real(const char *trace, const char *alloc, const char *db, uint64_t interval_ns,
                    const char *label, const char *threads, long long *r_id, rs_err *err)
{
    char prog[4096], interval[64], line[1024];
    int fds[2], rc;

    if ((rc = real_path(prog, sizeof prog, err)))
        return rc;
    snprintf(interval, sizeof interval, "%" PRIu64 "ns", interval_ns);
    if (pipe(fds) != 0)
        return rs_fail(err, RS_EIO, "cannot create a pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return rs_fail(err, RS_EIO, "cannot fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[1]);
        const char *argv[16] = { prog, trace, "--alloc", alloc, "--db", db, "--sample-interval",
                                 interval, "--label", label };
        int argc = 10;
        if (threads) {
            argv[argc++] = "--threads";
            argv[argc++] = threads;
        }
        argv[argc] = NULL;
        execv(prog, (char *const *)argv);
        fprintf(stderr, "rssim validate: cannot run '%s': %s\n", prog, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    *r_id = 0;
    while (in && fgets(line, sizeof line, in)) {
        long long id;
        if (sscanf(line, "run %lld done", &id) == 1)
            *r_id = id;
        fputs(line, stdout);
    }
    if (in)
        fclose(in);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !*r_id)
        return rs_fail(err, WIFEXITED(status) && WEXITSTATUS(status) == 2 ? RS_EINPUT : RS_EINTERNAL,
                       "rssim-real failed on '%s' (exit status %d)", trace,
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

typedef struct errors {
    double mean_pct, max_pct, steady_pct;
    long n;
    double steady_pred, steady_meas; /* means over the steady samples */
} errors;

static int compare(sqlite3 *db, long long pred, long long meas, const char *col, errors *r,
                   rs_err *err)
{
    char sql[1024];
    sqlite3_stmt *s;
    double peak = 0, t_end = 0, p0 = 0, m0 = 0;
    int first = 1;

    snprintf(sql, sizeof sql,
             "SELECT p.t_ns, p.%s, m.%s FROM samples p JOIN samples m ON m.t_ns = p.t_ns"
             " WHERE p.run_id = ?1 AND m.run_id = ?2 ORDER BY p.t_ns", col, col);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return rs_fail(err, RS_EDB, "cannot compare column %s: %s", col, sqlite3_errmsg(db));
    sqlite3_bind_int64(s, 1, pred);
    sqlite3_bind_int64(s, 2, meas);
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (first) {
            p0 = sqlite3_column_double(s, 1);
            m0 = sqlite3_column_double(s, 2);
            first = 0;
        }
        peak = fmax(peak, sqlite3_column_double(s, 2) - m0);
        t_end = sqlite3_column_double(s, 0);
    }
    sqlite3_reset(s);
    *r = (errors){ 0 };
    double floor_v = fmax(0.05 * peak, 1.0), sum = 0, sp = 0, sm = 0;
    long ns = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        double t = sqlite3_column_double(s, 0), p = sqlite3_column_double(s, 1) - p0,
               m = sqlite3_column_double(s, 2) - m0;
        double e = 100.0 * fabs(p - m) / fmax(m, floor_v);
        sum += e;
        r->max_pct = fmax(r->max_pct, e);
        r->n++;
        if (t >= t_end / 2) {
            sp += p;
            sm += m;
            ns++;
        }
    }
    sqlite3_finalize(s);
    if (r->n) {
        r->mean_pct = sum / (double)r->n;
        r->steady_pred = sp / (double)ns;
        r->steady_meas = sm / (double)ns;
        r->steady_pct = 100.0 * fabs(r->steady_pred - r->steady_meas) / fmax(r->steady_meas, floor_v);
    }
    return 0;
}

static int store_metric(sqlite3 *db, long long run, const char *name, double v, rs_err *err)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO metrics(run_id, name, value) VALUES (?1, ?2, ?3)",
                           -1, &s, NULL) != SQLITE_OK)
        return rs_fail(err, RS_EDB, "cannot store metric: %s", sqlite3_errmsg(db));
    sqlite3_bind_int64(s, 1, run);
    sqlite3_bind_text(s, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(s, 3, v);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? 0 : rs_fail(err, RS_EDB, "cannot store metric: %s", sqlite3_errmsg(db));
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "alloc", required_argument, NULL, 'a' },  { "preset", required_argument, NULL, 'p' },
        { "set", required_argument, NULL, 's' },    { "threads", required_argument, NULL, 't' },
        { "db", required_argument, NULL, 'd' },     { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *alloc = NULL, *preset = NULL, *db = rs_cli_default_db(), *threads = NULL;
    char *sets[MAX_SETS + 2], allocset[64];
    int nsets = 0, c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "a:p:s:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': alloc = optarg; break;
        case 'p': preset = optarg; break;
        case 's':
            if (nsets == MAX_SETS - 1)
                return rs_cli_usage_error("validate", "more than %d --set options", MAX_SETS - 1);
            sets[nsets++] = optarg;
            break;
        case 't': threads = optarg; break;
        case 'd': db = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind != argc - 1)
        return rs_cli_usage_error("validate", "expected exactly one TRACE");
    const rs_alloc_ops *aops = alloc ? rs_registry_find(&rs_reg_alloc, alloc) : NULL;
    char names[256];
    if (!aops || !aops->real)
        return rs_cli_usage_error("validate", "--alloc %s is required",
                                  real_names(names, sizeof names));
    const rs_alloc_real *real = aops->real;
    const char *trace = argv[optind];
    snprintf(allocset, sizeof allocset, "alloc=%s", alloc);
    sets[nsets++] = allocset;
    /* the real side replays faster than virtual time: nothing on the wall clock */
    size_t keylen = real->replay_set ? strcspn(real->replay_set, "=") + 1 : 0;
    int replay_set_by_caller = 0;
    for (int i = 0; i < nsets && keylen; i++)
        replay_set_by_caller |= !strncmp(sets[i], real->replay_set, keylen);
    char replay_set[128];
    if (real->replay_set && !replay_set_by_caller) {
        snprintf(replay_set, sizeof replay_set, "%s", real->replay_set);
        sets[nsets++] = replay_set;
    }
    if (real->replay_env && !replay_set_by_caller) {
        char env[256];
        size_t eq = strcspn(real->replay_env, "=");
        snprintf(env, sizeof env, "%.*s", (int)eq, real->replay_env);
        setenv(env, real->replay_env + eq + 1, 1);
    }

    rs_err err = { 0 };
    rs_trace *tr = NULL;
    rs_config *cfg = NULL;
    rs_store *st = NULL;
    rs_result res;
    char sha[65], emitted[4096] = "", label[256];
    const char *alloc_trace = trace;
    long long pred = 0, meas = 0;

    rs_result_init(&res);
    if ((rc = rs_cli_check_input(trace, &err)) || (rc = rs_trace_open(&tr, trace, &err)))
        goto out;
    int is_alloc = !strcmp(rs_trace_daemon(tr), "alloc");
    rs_trace_close(tr);
    if (!preset && !is_alloc) {
        rc = rs_fail(&err, RS_EINPUT, "%s: a '%s' trace needs --preset", trace, "daemon");
        goto out;
    }
    if ((rc = rs_cli_build_config(preset ? preset : "alloc-replay", sets, nsets, &cfg, &err)) ||
        (rc = rs_file_sha256(trace, sha, &err)) || (rc = rs_cli_mkdir_parent(db, &err)) ||
        (rc = rs_store_open(&st, db, &err)))
        goto out;
    if (!is_alloc) {
        char dbdir[4096];
        snprintf(dbdir, sizeof dbdir, "%s", db);
        snprintf(emitted, sizeof emitted, "%s/validate-%.12s-%s.alloc.bin", dirname(dbdir), sha, alloc);
        alloc_trace = emitted;
    }
    snprintf(label, sizeof label, "validate %s", alloc);
    rs_run_meta meta = {
        .kind = "predicted", .trace_path = trace, .trace_sha256 = sha,
        .preset = preset ? preset : "alloc-replay", .seed = (uint64_t)rs_config_int(cfg, "seed"),
        .label = label, .sweep_id = 0, .point_index = -1,
    };
    int64_t id;
    if ((rc = rs_store_run_begin(st, &meta, cfg, &id, &err)))
        goto out;
    pred = id;
    if ((rc = rs_cli_execute_run(st, pred, trace, cfg, is_alloc ? NULL : emitted, &res, NULL, NULL,
                                 &err))) {
        rs_err_prefix(&err, "predicted run %lld failed", pred);
        goto out;
    }
    printf("run %lld done (predicted, %s model)\n", pred, alloc);
    snprintf(label, sizeof label, "validate %s: measured for predicted run %lld", alloc, pred);
    if ((rc = run_real(alloc_trace, alloc, db, rs_config_duration_ns(cfg, "sample_interval"), label,
                       threads, &meas, &err)))
        goto out;

    printf("\n%-21s %10s %10s %10s   %12s %12s   (%% error; steady means in MiB)\n", "column",
           "mean", "max", "steady", "predicted", "measured");
    uint32_t both = (RS_ALLOC_F_CORE | aops->reports) & (RS_ALLOC_F_RESIDENT | real->reports);
    for (size_t i = 0; i < sizeof columns / sizeof columns[0] && !rc; i++) {
        errors e = { 0 };
        char name[96];
        if (!(both & columns[i].field))
            continue; /* one side does not report it */
        if ((rc = compare(rs_store_db(st), pred, meas, columns[i].name, &e, &err)))
            break;
        if (e.steady_meas == 0 && e.max_pct >= 100 * (e.steady_pred > 0))
            continue; /* reported, but the measured side never moved from its start */
        printf("%-21s %9.2f%% %9.2f%% %9.2f%%   %12.1f %12.1f\n", columns[i].name, e.mean_pct, e.max_pct,
               e.steady_pct, e.steady_pred / 1048576.0, e.steady_meas / 1048576.0);
        const struct { const char *suffix; double v; } m[] = {
            { "mean", e.mean_pct }, { "max", e.max_pct }, { "steady", e.steady_pct },
        };
        for (size_t j = 0; j < 3 && !rc; j++) {
            snprintf(name, sizeof name, "validate_%.*s_%s_error_pct",
                     (int)(strlen(columns[i].name) - 6), columns[i].name, m[j].suffix);
            rc = store_metric(rs_store_db(st), meas, name, m[j].v, &err);
        }
    }
    if (!rc)
        rc = store_metric(rs_store_db(st), meas, "predicted_run_id", (double)pred, &err);
    if (!rc)
        printf("\nruns %lld (predicted) and %lld (measured) in %s; plot: rssim plot validate --db %s --run %lld -o out/validate.png\n",
               pred, meas, db, db, meas);
out:
    rs_result_release(&res);
    rs_config_free(cfg);
    rs_store_close(st);
    return rc ? rs_cli_report(&err) : 0;
}
