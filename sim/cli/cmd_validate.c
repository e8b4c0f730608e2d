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
 *     measured column's largest change from its start — its peak, unless
 *     it only fell), so near-empty early samples cannot dominate; the
 *     peak error compares the two sides' highest values the same way.
 *     The numbers (and the steady means and peaks, in KiB, MiB or GiB as
 *     fits) are printed and stored as metrics of the measured run
 *     (validate_<column>_{mean,max,steady,peak}_error_pct,
 *     predicted_run_id); `rssim plot validate --run M` draws both.  Fewer
 *     than 20 compared samples give a warning.
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
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../models/alloc/alloc.h"
#include "../../traces/trace.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../query.h"
#include "../registry.h"
#include "../store.h"
#include "cli.h"

#define MAX_SETS 256
#define MAX_SAMPLES_OPT 1000000 /* --samples: the run's own sample bound */
#define FEW_SAMPLES 20          /* fewer compared samples: a warning */

/* Columns both sides report, in the order printed, and where each is in
 * an rs_sample. */
#define NCOLUMNS 9
#define COLUMN_AT(name) offsetof(rs_sample, name)
static const char *const columns[NCOLUMNS] = { "rss_bytes", "resident_bytes", "allocated_bytes", "mapped_bytes",
                                               "cached_bytes", "thread_cached_bytes",
                                               "central_cached_bytes", "transfer_cached_bytes",
                                               "pageheap_free_bytes" };
static const size_t column_offsets[NCOLUMNS] = {
    COLUMN_AT(rss_bytes), COLUMN_AT(resident_bytes), COLUMN_AT(allocated_bytes), COLUMN_AT(mapped_bytes),
    COLUMN_AT(cached_bytes), COLUMN_AT(thread_cached_bytes), COLUMN_AT(central_cached_bytes),
    COLUMN_AT(transfer_cached_bytes), COLUMN_AT(pageheap_free_bytes),
};
/* Which rs_alloc_stats field each column is (RS_ALLOC_F_*): a column is
 * compared when both the model and the real library report it (their ops
 * tables say). */
static const uint32_t column_fields[NCOLUMNS] = {
    RS_ALLOC_F_RESIDENT, RS_ALLOC_F_RESIDENT, RS_ALLOC_F_ALLOCATED, RS_ALLOC_F_MAPPED, RS_ALLOC_F_CACHED,
    RS_ALLOC_F_THREAD_CACHED, RS_ALLOC_F_CENTRAL_CACHED, RS_ALLOC_F_TRANSFER_CACHED,
    RS_ALLOC_F_PAGEHEAP_FREE,
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
            "                      [--sample-interval D | --samples N] [--set key=value ...]\n"
            "                      [--threads N] [--db PATH]\n\n"
            "Replay TRACE with the allocator model (predicted) and its allocations with the\n"
            "real allocator (measured, by rssim-real), store both runs, and print their\n"
            "error per column: mean and max per-sample error, steady-state and peak error\n"
            "(%%), and the steady means and peaks of both sides (KiB, MiB or GiB as fits).\n"
            "A kv trace needs --preset; an alloc trace uses preset alloc-replay.\n\n"
            "  -a, --alloc A            the allocator: %s\n"
            "  -p, --preset P           preset of the predicted run (models/presets/P.conf)\n"
            "  -i, --sample-interval D  virtual time between samples (default: the preset's\n"
            "                           sample_interval, 100ms)\n"
            "  -n, --samples N          N samples spread over the trace (2..%d)\n"
            "  -s, --set K=V            override one parameter (repeatable)\n"
            "  -t, --threads N          rssim-real worker threads (default: the trace's)\n"
            "      --db PATH            SQLite database (default %s)\n"
            "  -h, --help               this help\n"
            "Fewer than %d compared samples give a warning: errors over so few are noise.\n",
            names, names, MAX_SAMPLES_OPT, rs_cli_default_db(), FEW_SAMPLES);
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
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        rc = rs_fail(err, RS_EIO, "cannot fork: %s", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return rc;
    }
    if (pid == 0) {
        /* the measurement dies with this process (kept across exec) */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
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
    pid_t got;
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    if (got != pid)
        return rs_fail(err, RS_EINTERNAL, "cannot wait for rssim-real: %s", strerror(errno));
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !*r_id)
        return rs_fail(err, WIFEXITED(status) && WEXITSTATUS(status) == 2 ? RS_EINPUT : RS_EINTERNAL,
                       "rssim-real failed on '%s' (exit status %d)", trace,
                       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}

typedef struct errors {
    double mean_pct, max_pct, steady_pct, peak_pct;
    long n;
    double steady_pred, steady_meas; /* means over the steady samples */
    double peak_pred, peak_meas;     /* highest value over the run */
} errors;

/* Column k of a sample, as the double of the int64 the store holds. */
static double column_value(const rs_sample *smp, size_t k)
{
    uint64_t v;
    memcpy(&v, (const char *)smp + column_offsets[k], sizeof v);
    return (double)(int64_t)v;
}

/* The comparison of every column, over the samples of the predicted (a)
 * and measured (b) runs at their common times: a first pass finds each
 * column's start values, measured peak and the last time, a second the
 * errors. */
typedef struct compare_state {
    int pass, first;
    double peak[NCOLUMNS], ppeak[NCOLUMNS], mag[NCOLUMNS], p0[NCOLUMNS], m0[NCOLUMNS], t_end;
    double sum[NCOLUMNS], sp[NCOLUMNS], sm[NCOLUMNS];
    long ns;
    errors *e; /* NCOLUMNS */
} compare_state;

static int compare_row(void *ctx, const rs_sample *pred, const rs_sample *meas, rs_err *err)
{
    compare_state *c = ctx;
    double t = (double)(int64_t)pred->t_ns;

    (void)err;
    if (c->pass == 0) {
        for (size_t k = 0; k < NCOLUMNS; k++) {
            if (c->first) {
                c->p0[k] = column_value(pred, k);
                c->m0[k] = column_value(meas, k);
            }
            c->peak[k] = fmax(c->peak[k], column_value(meas, k) - c->m0[k]);
            c->mag[k] = fmax(c->mag[k], fabs(column_value(meas, k) - c->m0[k]));
            c->ppeak[k] = fmax(c->ppeak[k], column_value(pred, k) - c->p0[k]);
        }
        c->first = 0;
        c->t_end = t;
        return 0;
    }
    int steady = t >= c->t_end / 2;
    for (size_t k = 0; k < NCOLUMNS; k++) {
        errors *r = &c->e[k];
        double floor_v = fmax(0.05 * c->mag[k], 1.0);
        double p = column_value(pred, k) - c->p0[k], m = column_value(meas, k) - c->m0[k];
        double e = 100.0 * fabs(p - m) / fmax(m, floor_v);
        c->sum[k] += e;
        r->max_pct = fmax(r->max_pct, e);
        r->n++;
        if (steady) {
            c->sp[k] += p;
            c->sm[k] += m;
        }
    }
    c->ns += steady;
    return 0;
}

static int compare(rs_store *st, long long pred, long long meas, errors r[NCOLUMNS], rs_err *err)
{
    compare_state c = { .first = 1, .e = r };
    int rc;

    for (c.pass = 0; c.pass < 2; c.pass++)
        if ((rc = rs_query_samples_join(st, pred, meas, columns, NCOLUMNS, compare_row, &c, err)))
            return rc;
    for (size_t k = 0; k < NCOLUMNS; k++) {
        if (!r[k].n)
            continue;
        double floor_v = fmax(0.05 * c.mag[k], 1.0);
        r[k].mean_pct = c.sum[k] / (double)r[k].n;
        r[k].steady_pred = c.sp[k] / (double)c.ns;
        r[k].steady_meas = c.sm[k] / (double)c.ns;
        r[k].steady_pct = 100.0 * fabs(r[k].steady_pred - r[k].steady_meas) /
                          fmax(r[k].steady_meas, floor_v);
        r[k].peak_pred = c.ppeak[k];
        r[k].peak_meas = c.peak[k];
        r[k].peak_pct = 100.0 * fabs(c.ppeak[k] - c.peak[k]) / fmax(c.peak[k], floor_v);
    }
    return 0;
}

/* An error in %, in at most 9 characters: two decimals below 1000 %. */
static void pct_cell(char *buf, size_t cap, double pct)
{
    if (pct < 1000)
        snprintf(buf, cap, "%.2f%%", pct);
    else if (pct < 1e7)
        snprintf(buf, cap, "%.0f%%", pct);
    else
        snprintf(buf, cap, ">1e7%%");
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {
        { "alloc", required_argument, NULL, 'a' },  { "preset", required_argument, NULL, 'p' },
        { "sample-interval", required_argument, NULL, 'i' },
        { "samples", required_argument, NULL, 'n' },
        { "set", required_argument, NULL, 's' },    { "threads", required_argument, NULL, 't' },
        { "db", required_argument, NULL, 'd' },     { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *alloc = NULL, *preset = NULL, *db = rs_cli_default_db(), *threads = NULL;
    const char *interval_opt = NULL, *samples_opt = NULL;
    char *sets[MAX_SETS + 3], allocset[64], intervalset[96];
    int nsets = 0, c, rc;

    optind = 1;
    while ((c = getopt_long(argc, argv, "a:p:i:n:s:t:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': alloc = optarg; break;
        case 'p': preset = optarg; break;
        case 'i': interval_opt = optarg; break;
        case 'n': samples_opt = optarg; break;
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
    if (interval_opt && samples_opt)
        return rs_cli_usage_error("validate", "--sample-interval and --samples both say how to "
                                              "sample; give one");
    for (int i = 0; i < nsets && (interval_opt || samples_opt); i++)
        if (!strncmp(sets[i], "sample_interval=", 16))
            return rs_cli_usage_error("validate", "--set %s and %s both set the sample interval; "
                                                  "give one", sets[i],
                                      interval_opt ? "--sample-interval" : "--samples");
    long long nsamples = 0;
    if (samples_opt) {
        char *end;
        errno = 0;
        nsamples = strtoll(samples_opt, &end, 10);
        if (errno || *end || end == samples_opt || nsamples < 2 || nsamples > MAX_SAMPLES_OPT)
            return rs_cli_usage_error("validate", "bad value '%s' for --samples: a count from 2 "
                                                  "to %d", samples_opt, MAX_SAMPLES_OPT);
    }
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
    /* an allocation trace goes straight to the allocators (daemon alloc) */
    const rs_daemon_ops *alloc_daemon = rs_registry_find(&rs_reg_daemon, "alloc");
    char kind[16];
    snprintf(kind, sizeof kind, "%s", rs_trace_daemon(tr));
    int is_alloc = alloc_daemon && !strcmp(kind, alloc_daemon->trace_daemon);
    rs_trace_close(tr);
    if (!preset && !is_alloc) {
        rc = rs_fail(&err, RS_EINPUT, "%s: a '%s' trace needs --preset", trace, kind);
        goto out;
    }
    if (interval_opt) {
        snprintf(intervalset, sizeof intervalset, "sample_interval=%s", interval_opt);
        sets[nsets++] = intervalset;
    } else if (nsamples) {
        /* samples at 0, interval, ... up to the end, just after the last record */
        rs_trace_summary sum;
        if ((rc = rs_trace_summarize(trace, &sum, &err)))
            goto out;
        uint64_t end_ns = sum.records ? sum.t_last_ns + 1 : 0;
        if (end_ns < (uint64_t)nsamples - 1) {
            rc = rs_fail(&err, RS_EINPUT, "%s: --samples %lld: the trace spans %" PRIu64
                         " ns of virtual time, too short for that many samples", trace,
                         nsamples, end_ns);
            goto out;
        }
        /* rounded up: at most nsamples samples, however end_ns divides */
        uint64_t step = end_ns / (uint64_t)(nsamples - 1) + (end_ns % (uint64_t)(nsamples - 1) != 0);
        snprintf(intervalset, sizeof intervalset, "sample_interval=%" PRIu64 "ns", step);
        sets[nsets++] = intervalset;
    }
    if ((rc = rs_cli_build_config(preset ? preset : "alloc-replay", sets, nsets, &cfg, &err)) ||
        (rc = rs_cli_mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)) ||
        (rc = rs_store_trace_sha256(st, trace, sha, &err)))
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

    errors cmp[NCOLUMNS] = { 0 };
    uint32_t both = (RS_ALLOC_F_CORE | aops->reports) & (RS_ALLOC_F_RESIDENT | real->reports);
    if ((rc = compare(st, pred, meas, cmp, &err)))
        goto out;
    /* the columns shown: both sides report them and the measured one moved */
    int shown[NCOLUMNS];
    double top = 0;
    long nsamp = 0;
    for (size_t i = 0; i < NCOLUMNS; i++) {
        const errors *e = &cmp[i];
        shown[i] = (both & column_fields[i]) && e->n &&
                   !(e->steady_meas == 0 && e->max_pct >= 100 * (e->steady_pred > 0));
        if (shown[i])
            top = fmax(top, fmax(fmax(e->peak_meas, e->peak_pred), fmax(e->steady_meas, e->steady_pred)));
        nsamp = e->n > nsamp ? e->n : nsamp;
    }
    const char *unit, *tunit;
    double scale, tscale, every = (double)rs_config_duration_ns(cfg, "sample_interval");
    char every_s[48];
    rs_cli_size_unit(top, &unit, &scale);
    rs_cli_ns_unit(every, &tunit, &tscale);
    snprintf(every_s, sizeof every_s, "%.4g %s", every / tscale, tunit);
    printf("\n%ld samples compared, one every %s of virtual time\n", nsamp, every_s);
    printf("%-21s %9s %9s %9s %9s   %11s %11s   %11s %11s\n", "column", "mean", "max", "steady",
           "peak", "steady pred", "measured", "peak pred", "measured");
    printf("%-21s %9s %9s %9s %9s   %11s %11s   %11s %11s\n", "", "% err", "% err", "% err",
           "% err", unit, unit, unit, unit);
    for (size_t i = 0; i < NCOLUMNS && !rc; i++) {
        const errors e = cmp[i];
        char name[96];
        if (!shown[i])
            continue; /* one side does not report it, or the measured side never moved */
        char cells[4][16];
        const double pcts[4] = { e.mean_pct, e.max_pct, e.steady_pct, e.peak_pct };
        for (size_t j = 0; j < 4; j++)
            pct_cell(cells[j], sizeof cells[j], pcts[j]);
        printf("%-21s %9s %9s %9s %9s   %11.1f %11.1f   %11.1f %11.1f\n", columns[i], cells[0],
               cells[1], cells[2], cells[3], e.steady_pred / scale, e.steady_meas / scale,
               e.peak_pred / scale, e.peak_meas / scale);
        const struct { const char *suffix; double v; } m[] = {
            { "mean", e.mean_pct }, { "max", e.max_pct }, { "steady", e.steady_pct },
            { "peak", e.peak_pct },
        };
        for (size_t j = 0; j < sizeof m / sizeof m[0] && !rc; j++) {
            snprintf(name, sizeof name, "validate_%.*s_%s_error_pct",
                     (int)(strlen(columns[i]) - 6), columns[i], m[j].suffix);
            rc = rs_store_metric_set(st, meas, name, m[j].v, &err);
        }
    }
    if (!rc && nsamp < FEW_SAMPLES)
        fprintf(stderr, "rssim validate: warning: only %ld samples compared (sample_interval %s); "
                        "errors over fewer than %d samples are noise: use --samples 100 or a "
                        "shorter --sample-interval\n",
                nsamp, every_s, FEW_SAMPLES);
    if (!rc)
        rc = rs_store_metric_set(st, meas, "predicted_run_id", (double)pred, &err);
    if (!rc)
        printf("\nruns %lld (predicted) and %lld (measured) in %s; plot: rssim plot validate --db %s --run %lld -o out/validate.png\n",
               pred, meas, db, db, meas);
out:
    rs_result_release(&res);
    rs_config_free(cfg);
    rs_store_close(st);
    return rc ? rs_cli_report(&err) : 0;
}
