/*
 * cmd_sweep.c — `rssim sweep TRACE --preset P --vary key=v1,v2 ... --jobs N`.
 *
 * The parent checks every point's config, then forks N workers at once and,
 * while they start, opens the database, takes the trace's identity (its
 * SHA-256, remembered in the store or computed), creates the sweep and one
 * run row per grid point (status pending) in point order — so run ids and
 * point numbers are the same whatever --jobs is — and hands the workers the
 * points not yet done (a shared mapping, then a word on each worker's pipe).
 * Each worker takes the next of them not yet taken (a counter in the
 * mapping), so a long point holds back no other and a dead worker's points
 * go to the others; it runs them with its own connection
 * (SQLite WAL lets them write side by side), and reports every finished
 * point on a pipe; the parent draws the progress.  When the sweep must be
 * new (no database yet, or none of its sweeps has this spec: the spec is
 * part of the sweep's identity), each worker replays its first point while
 * the parent is still hashing and writing rows, and stores it once it has
 * claimed it (a point done or held by another process meanwhile is
 * dropped).  A point is 'done' only when its rows are committed, so a
 * killed sweep re-run with the same arguments finds its sweep again by hash
 * and runs exactly the points that are not done (pending, running or
 * failed).  Workers die with the parent (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../traces/trace.h"
#include "../base/config.h"
#include "../base/result.h"
#include "../run.h"
#include "../store.h"
#include "../sweep.h"
#include "cli.h"

#define MAX_SETS 256
#define MAX_JOBS 256
#define MAX_SPEC_BYTES (64 << 10) /* the grid's spec text, stored with its sweep */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rssim sweep TRACE --preset P --vary key=v1,v2,... [--vary ...]\n"
            "                   [--set key=value ...] [--jobs N] [--db PATH]\n\n"
            "Replay TRACE at every point of the grid (the cartesian product of the --vary\n"
            "lists) on N worker processes; each point is stored as a run, identical to\n"
            "'rssim replay' with the same settings.  Re-running the same command resumes:\n"
            "points already done are skipped.\n\n"
            "  -p, --preset P    models/presets/P.conf, or a path to a .conf file\n"
            "  -v, --vary K=LIST comma-separated values of one parameter (repeatable)\n"
            "  -s, --set K=V     fixed override (repeatable)\n"
            "      --strict      same as --set strict=true\n"
            "  -j, --jobs N      worker processes (default 1)\n"
            "      --shard K/N   run only the points whose index is K modulo N (one task\n"
            "                    of a Slurm job array, each with its own --db); bring the\n"
            "                    shards together with 'rssim db merge'\n"
            "      --db PATH     SQLite database (default %s)\n"
            "  -h, --help        this help\n",
            rs_cli_default_db());
}

typedef struct sweep_ctx {
    const char *trace, *db;
    const rs_config *base;
    const rs_grid *grid;
    int64_t shard_k, shard_n;
    /* a mapping shared with the workers: the parent fills it before "go";
     * the workers take indices from it atomically: todo_next, the next
     * index, and reserved[w], set by whoever takes index w < nreserved, the
     * point worker w of a new sweep replayed ahead */
    int64_t *todo_next, *reserved, *todo_points, *todo_ids;
    int nreserved;
    int64_t ntodo; /* a worker reads it from its "go" */
    int ahead;     /* the sweep is new: replay each worker's first point before "go" */
} sweep_ctx;

/* A point replayed before its run row existed; stored once claimed. */
typedef struct ahead_run {
    int64_t point; /* -1: none (or used) */
    int rc;
    rs_err err;
    rs_result res;
    rs_run_stats stats;
    unsigned long long wall_ns;
} ahead_run;

/* A process's start time in clock ticks since boot (/proc/PID/stat field
 * 22) and its state (field 3: 'Z' for a zombie); -1 when it is gone. */
static int proc_start(long pid, unsigned long long *r_start, char *r_state)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p || !p[1] || !p[2])
        return -1;
    p++;
    *r_state = p[1];
    for (int field = 3; field < 22 && p; field++) /* p is before field `field` */
        p = strchr(p + 1, ' ');
    return p && sscanf(p, " %llu", r_start) == 1 ? 0 : -1;
}

/* Process pid as a claim's owner: "host:pid:start", start being its start
 * time, so a reused pid is not taken for the process that claimed. */
static void claim_owner(long pid, char *r_owner, size_t cap)
{
    char host[256] = "?", state;
    unsigned long long start = 0;
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    proc_start(pid, &start, &state);
    snprintf(r_owner, cap, "%s:%ld:%llu", host, pid, start);
}

/* Is the owner of a claim still running?  Only a process of this host can
 * be asked; a claim from another host counts as gone (taken over), as a
 * resumed sweep always did. */
static int owner_alive(const char *owner, void *ctx)
{
    (void)ctx;
    char host[256] = "?";
    long pid;
    unsigned long long start, now_start;
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    const char *colon = strrchr(owner, ':');
    if (!colon)
        return 0;
    const char *pc = colon;
    while (pc > owner && pc[-1] != ':')
        pc--;
    if (pc == owner || (size_t)(pc - 1 - owner) != strlen(host) || strncmp(owner, host, strlen(host)))
        return 0;
    if (sscanf(pc, "%ld:%llu", &pid, &start) != 2)
        return 0;
    char state = '?';
    /* a zombie (killed, not yet reaped) holds its pid and start time but
     * will never finish the point */
    return proc_start(pid, &now_start, &state) == 0 && now_start == start && state != 'Z' &&
           state != 'X';
}

/* Run one point unless it is done or another live process holds it
 * (*r_busy then); the result replayed ahead is stored if it is this point.
 * 0 or RS_E* (err filled). */
static int run_point(const sweep_ctx *sc, rs_store *st, int64_t point, int64_t id, const char *owner,
                     const rs_run_opts *opts, ahead_run *ahead, int *r_busy, rs_err *err)
{
    rs_config *cfg = NULL;
    rs_result res;
    rs_err ignored;
    int claim = RS_CLAIM_TAKEN, rc = 0;

    *r_busy = 0;
    rs_result_init(&res);
    if (ahead->point != point)
        rc = rs_grid_point_config(sc->grid, sc->base, point, &cfg, err);
    if (!rc)
        rc = rs_store_point_claim(st, id, owner, owner_alive, NULL, &claim, err);
    if (!rc && claim == RS_CLAIM_TAKEN && ahead->point == point) {
        ahead->point = -1;
        if (ahead->rc) {
            rs_store_run_fail(st, id, ahead->err.msg, &ignored);
            *err = ahead->err;
            rc = ahead->rc;
        } else {
            rc = rs_store_run_finish(st, id, &ahead->res, ahead->stats.events, ahead->wall_ns, err);
            if (!rc)
                rs_cli_note_burst(id, sc->trace, &ahead->stats);
        }
    } else if (!rc && claim == RS_CLAIM_TAKEN) {
        rc = rs_cli_execute_run_opts(st, id, sc->trace, cfg, opts, &res, NULL, NULL, err);
    }
    *r_busy = !rc && claim == RS_CLAIM_BUSY;
    rs_result_release(&res);
    rs_config_free(cfg);
    return rc;
}

/* Replay the point a worker of a new sweep will be given first: the w-th
 * point of its shard. */
static void run_ahead(const sweep_ctx *sc, int w, const rs_run_opts *opts, ahead_run *ahead)
{
    int64_t point = sc->shard_k + (int64_t)w * sc->shard_n;
    rs_config *cfg = NULL;

    if (!sc->ahead || point >= sc->grid->points)
        return;
    ahead->point = point;
    if ((ahead->rc = rs_grid_point_config(sc->grid, sc->base, point, &cfg, &ahead->err)))
        return;
    unsigned long long t0 = rs_cli_now_ns();
    ahead->rc = rs_run_execute_opts(sc->trace, cfg, opts, &ahead->res, &ahead->stats, &ahead->err);
    ahead->wall_ns = rs_cli_now_ns() - t0;
    rs_config_free(cfg);
}

/* The parent's "go": the number of points to run (8 bytes).  -1 on end of
 * file (the parent failed before it and reports why). */
static int read_go(int fd, int64_t *r_ntodo)
{
    size_t got = 0;
    while (got < sizeof *r_ntodo) {
        ssize_t n = read(fd, (char *)r_ntodo + got, sizeof *r_ntodo - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
    }
    return 0;
}

static int report(int fd, int64_t point, int rc)
{
    char line[64];
    /* the point and its code: 0 done, else its RS_E* (the parent maps it to
     * an exit status as replay does) */
    int n = snprintf(line, sizeof line, "%lld %d\n", (long long)point, rc);
    return write(fd, line, (size_t)n) == n ? 0 : -1;
}

/* Index j reserved for worker j's ahead point, taken by the first to ask. */
static int take_reserved(sweep_ctx *sc, int64_t j)
{
    int64_t free_ = 0;
    return j < sc->ntodo && __atomic_compare_exchange_n(&sc->reserved[j], &free_, 1, 0,
                                                       __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

/* The next index worker w runs, -1 when none is left: first its own
 * reserved one (the point it replayed ahead), then the next from the
 * counter (which starts past the reserved ones), then any reserved one its
 * worker never took (it died first).  *phase and *scan start at 0. */
static int64_t take(sweep_ctx *sc, int w, int *phase, int64_t *scan)
{
    if (*phase == 0) {
        *phase = 1;
        if (w < sc->nreserved && take_reserved(sc, w))
            return w;
    }
    if (*phase == 1) {
        int64_t i = __atomic_fetch_add(sc->todo_next, 1, __ATOMIC_RELAXED);
        if (i < sc->ntodo)
            return i;
        *phase = 2;
    }
    while (*scan < sc->nreserved) {
        int64_t j = (*scan)++;
        if (take_reserved(sc, j))
            return j;
    }
    return -1;
}

/* A worker: run the points it takes; write "point code\n" lines.  A
 * point another live process holds (an identical sweep on the same
 * database) is left to it and awaited at the end: reported when it is done,
 * run here if its holder dies or fails it. */
static int worker(sweep_ctx *sc, int w, int jobs, int go_fd, int fd)
{
    rs_err err = { 0 };
    rs_store *st = NULL;
    int failures = 0, busy;
    int64_t *waiting = NULL, nwait = 0;
    char owner[320];
    ahead_run ahead = { .point = -1 };

    rs_result_init(&ahead.res);
    claim_owner((long)getpid(), owner, sizeof owner);
    /* Keep the heap between points: glibc would hand large blocks back to
     * the kernel after each point (mmap threshold, trim) and fault them in
     * again in the next, about 200 page faults per small point. */
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    /* Several workers keep the cores busy: decode the trace inline rather
     * than on a readahead thread that would compete with the other worker. */
    rs_run_opts opts = { .decode_inline = jobs > 1 };
    run_ahead(sc, w, &opts, &ahead);
    if (read_go(go_fd, &sc->ntodo)) {
        rs_result_release(&ahead.res);
        return 0;
    }
    if (rs_store_open(&st, sc->db, &err)) {
        fprintf(stderr, "rssim sweep: worker %d: %s\n", w, err.msg);
        rs_result_release(&ahead.res);
        return 1;
    }
    if (!(waiting = malloc((size_t)(sc->ntodo + 1) * sizeof *waiting))) {
        rs_store_close(st);
        rs_result_release(&ahead.res);
        return 1;
    }
    /* a new sweep's worker first takes the point it replayed ahead, the
     * w-th; then every worker the next not taken, so a long point holds back
     * no other, and a dead worker's points go to the others */
    int phase = 0;
    int64_t scan = 0;
    for (int64_t i; (i = take(sc, w, &phase, &scan)) >= 0;) {
        int64_t point = sc->todo_points[i], id = sc->todo_ids[i];
        int rc = run_point(sc, st, point, id, owner, &opts, &ahead, &busy, &err);
        if (busy) {
            waiting[nwait++] = i;
            continue;
        }
        if (rc) {
            fprintf(stderr, "rssim sweep: point %lld (run %lld) failed: %s\n", (long long)point,
                    (long long)id, err.msg);
            failures++;
        }
        if (report(fd, point, rc))
            break;
    }
    while (nwait > 0) {
        int64_t kept = 0;
        for (int64_t k = 0; k < nwait; k++) {
            int64_t i = waiting[k], point = sc->todo_points[i], id = sc->todo_ids[i];
            int rc = run_point(sc, st, point, id, owner, &opts, &ahead, &busy, &err);
            if (busy) {
                waiting[kept++] = i;
                continue;
            }
            if (rc) {
                fprintf(stderr, "rssim sweep: point %lld (run %lld) failed: %s\n", (long long)point,
                        (long long)id, err.msg);
                failures++;
            }
            report(fd, point, rc);
        }
        nwait = kept;
        if (nwait)
            usleep(100 * 1000);
    }
    free(waiting);
    rs_result_release(&ahead.res);
    rs_store_close(st);
    return failures ? 1 : 0;
}

static void progress(int tty, int64_t done, int64_t total, int64_t failed,
                     unsigned long long t0_ns, int64_t point)
{
    double el = (double)(rs_cli_now_ns() - t0_ns) / 1e9;
    double eta = done ? el / (double)done * (double)(total - done) : 0;
    if (tty) {
        int width = 30, fill = total ? (int)(width * done / total) : width;
        fprintf(stderr, "\r[%.*s%*s] %lld/%lld points  %lld failed  %.0fs elapsed  ETA %.0fs ",
                fill, "##############################", width - fill, "", (long long)done,
                (long long)total, (long long)failed, el, eta);
        if (done == total)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "sweep: point %lld finished (%lld/%lld, %lld failed, %.1fs elapsed, ETA %.0fs)\n",
                (long long)point, (long long)done, (long long)total, (long long)failed, el, eta);
    }
}

int cmd_sweep(int argc, char **argv)
{
    static const struct option opts[] = {
        { "preset", required_argument, NULL, 'p' }, { "vary", required_argument, NULL, 'v' },
        { "set", required_argument, NULL, 's' },    { "jobs", required_argument, NULL, 'j' },
        { "db", required_argument, NULL, 'd' },     { "help", no_argument, NULL, 'h' },
        { "shard", required_argument, NULL, 'S' },  { "strict", no_argument, NULL, 'T' },
        { NULL, 0, NULL, 0 },
    };
    const char *preset = NULL, *db = rs_cli_default_db();
    char *sets[MAX_SETS];
    int nsets = 0, jobs = 1, c, rc = 0;
    long shard_k = 0, shard_n = 1;
    rs_grid grid;
    rs_err err = { 0 };

    rs_grid_init(&grid);
    optind = 1;
    while ((c = getopt_long(argc, argv, "p:v:s:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'p': preset = optarg; break;
        case 'v':
            if ((rc = rs_grid_add(&grid, optarg, &err))) {
                rs_grid_release(&grid);
                return rs_cli_report(&err);
            }
            break;
        case 's':
            if (nsets == MAX_SETS) {
                rs_grid_release(&grid);
                return rs_cli_usage_error("sweep", "more than %d --set options", MAX_SETS);
            }
            sets[nsets++] = optarg;
            break;
        case 'j': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > MAX_JOBS) {
                rs_grid_release(&grid);
                return rs_cli_usage_error("sweep", "--jobs: expected 1..%d, got '%s'", MAX_JOBS, optarg);
            }
            jobs = (int)v;
            break;
        }
        case 'd': db = optarg; break;
        case 'T':
            if (nsets == MAX_SETS) {
                rs_grid_release(&grid);
                return rs_cli_usage_error("sweep", "more than %d --set options", MAX_SETS);
            }
            sets[nsets++] = "strict=true";
            break;
        case 'S': {
            char *end, *end2;
            shard_k = strtol(optarg, &end, 10);
            shard_n = *end == '/' ? strtol(end + 1, &end2, 10) : 0;
            if (*end != '/' || *end2 || shard_n < 1 || shard_k < 0 || shard_k >= shard_n) {
                rs_grid_release(&grid);
                return rs_cli_usage_error("sweep", "--shard: expected K/N with 0 <= K < N, got '%s'", optarg);
            }
            break;
        }
        case 'h': usage(stdout); rs_grid_release(&grid); return 0;
        default: usage(stderr); rs_grid_release(&grid); return 2;
        }
    }
    if (optind != argc - 1 || !preset || !grid.nkeys) {
        rs_grid_release(&grid);
        return rs_cli_usage_error("sweep", "expected TRACE, --preset and at least one --vary");
    }
    const char *trace = argv[optind];
    rs_config *base = NULL;
    rs_store *st = NULL;
    char sha[65], hash[17], keys[1024], *spec = NULL, probe[1];
    sweep_ctx sc = { 0 };
    int64_t sweep_id = 0, nshard = 0;
    int created = 0, nworkers = 0, fds[2] = { -1, -1 }, go[MAX_JOBS];
    pid_t pids[MAX_JOBS];
    static char owners[MAX_JOBS][320]; /* each worker's claims' owner */
    const pid_t parent = getpid();
    size_t todo_bytes = 0;

    if ((rc = rs_cli_build_config(preset, sets, nsets, &base, &err)) ||
        (rc = rs_cli_check_input(trace, &err)))
        goto out;
    /* Every point must be a valid config before anything is stored. */
    for (int64_t p = 0; p < grid.points; p++) {
        rs_config *cfg;
        if ((rc = rs_grid_point_config(&grid, base, p, &cfg, &err)))
            goto out;
        rs_config_free(cfg);
    }
    /* the spec is stored whole (it tells a new sweep from one to resume) */
    size_t spec_len = rs_grid_spec(&grid, probe, sizeof probe);
    if (spec_len > MAX_SPEC_BYTES) {
        rc = rs_fail(&err, RS_EINPUT, "--vary: the grid's values take %zu characters, at most %d",
                     spec_len, MAX_SPEC_BYTES);
        goto out;
    }
    if (!(spec = malloc(spec_len + 1))) {
        rc = rs_fail(&err, RS_ENOMEM, "out of memory for the grid's spec");
        goto out;
    }
    rs_grid_spec(&grid, spec, spec_len + 1);
    if (rs_grid_keys(&grid, keys, sizeof keys) >= sizeof keys) { /* 16 schema keys fit */
        rc = rs_fail(&err, RS_EINTERNAL, "the varied keys' names take more than %zu characters",
                     sizeof keys - 1);
        goto out;
    }
    sc = (sweep_ctx){ .trace = trace, .db = db, .base = base, .grid = &grid, .shard_k = shard_k,
                      .shard_n = shard_n };
    /* New for sure when there is no database yet or none of its sweeps has
     * this spec; anything else (a read error included) waits for the rows. */
    struct stat dbst;
    if (stat(db, &dbst) != 0) {
        sc.ahead = errno == ENOENT;
    } else {
        rs_store *ro;
        rs_err ignored;
        int known = 1;
        if (rs_store_open_ro(&ro, db, &ignored) == 0) {
            if (rs_store_sweep_spec_known(ro, spec, &known, &ignored))
                known = 1;
            rs_store_close(ro);
        }
        sc.ahead = !known;
    }
    nshard = shard_k < grid.points ? (grid.points - shard_k + shard_n - 1) / shard_n : 0;
    todo_bytes = (1 + MAX_JOBS + (size_t)(nshard ? nshard : 1) * 2) * sizeof(int64_t);
    void *todo = mmap(NULL, todo_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (todo == MAP_FAILED) {
        todo_bytes = 0;
        rc = rs_fail(&err, RS_ENOMEM, "out of memory for %lld points", (long long)nshard);
        goto out;
    }
    sc.todo_next = todo;
    sc.reserved = sc.todo_next + 1;
    sc.todo_points = sc.reserved + MAX_JOBS;
    sc.todo_ids = sc.todo_points + (nshard ? nshard : 1);

    /* The workers first: they start (and, for a new sweep, replay their first
     * point) while this process hashes the trace and writes the rows. */
    int want = jobs < nshard ? jobs : (int)nshard;
    sc.nreserved = sc.ahead ? want : 0; /* worker w replays the w-th point ahead */
    if (want > 0 && pipe(fds) != 0) {
        rc = rs_fail(&err, RS_EIO, "cannot create a pipe: %s", strerror(errno));
        goto out;
    }
    for (int w = 0; w < want; w++) {
        int gp[2];
        if (pipe(gp) != 0) {
            rc = rs_fail(&err, RS_EIO, "cannot create a pipe: %s", strerror(errno));
            goto out;
        }
        fflush(NULL);
        pids[w] = fork();
        if (pids[w] < 0) {
            close(gp[0]);
            close(gp[1]);
            rc = rs_fail(&err, RS_EIO, "cannot fork worker %d: %s", w, strerror(errno));
            goto out;
        }
        if (pids[w] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) /* the parent died before the prctl */
                _exit(1);
            close(fds[0]);
            close(gp[1]);
            for (int k = 0; k < w; k++) /* the earlier workers' "go" */
                close(go[k]);
            _exit(worker(&sc, w, want, gp[0], fds[1]));
        }
        close(gp[0]);
        go[w] = gp[1];
        claim_owner((long)pids[w], owners[w], sizeof owners[w]); /* as the worker names itself */
        nworkers++;
    }
    if (nworkers > 0) {
        close(fds[1]);
        fds[1] = -1;
    }
    unsigned long long t0 = rs_cli_now_ns();

    if ((rc = rs_cli_mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)) ||
        (rc = rs_store_trace_sha256(st, trace, sha, &err)))
        goto out;
    rs_grid_hash(&grid, base, sha, hash);
    rs_sweep_meta sm = {
        .spec_hash = hash, .trace_path = trace, .trace_sha256 = sha, .preset = preset,
        .spec = spec, .varied_keys = keys, .points = grid.points, .jobs = jobs,
    };
    if ((rc = rs_store_sweep_open(st, &sm, &sweep_id, &created, &err)))
        goto out;
    /* the points' rows in transactions of 4096 (one commit per point took
     * ~1 s of a 1,000-point sweep, all of it before any worker starts; one
     * transaction for all would hold the write lock for minutes on 10^6) */
    if ((rc = rs_store_batch_begin(st, &err)))
        goto out;
    for (int64_t p = 0; p < grid.points; p++) {
        char label[1024], status[16];
        if (p > 0 && p % 4096 == 0 &&
            ((rc = rs_store_batch_commit(st, &err)) || (rc = rs_store_batch_begin(st, &err))))
            goto out;
        rs_config *cfg;
        int64_t id;
        rs_grid_point_label(&grid, p, label, sizeof label);
        if ((rc = rs_grid_point_config(&grid, base, p, &cfg, &err)))
            goto out;
        rs_run_meta meta = {
            .kind = "predicted", .trace_path = trace, .trace_sha256 = sha, .preset = preset,
            .seed = (uint64_t)rs_config_int(cfg, "seed"), .label = label, .sweep_id = sweep_id,
            .point_index = p,
        };
        rc = rs_store_sweep_point(st, sweep_id, p, &meta, cfg, &id, &err);
        rs_config_free(cfg);
        if (rc || (rc = rs_store_run_status(st, id, status, &err)))
            goto out;
        if (strcmp(status, "done") != 0 && p % shard_n == shard_k) {
            sc.todo_points[sc.ntodo] = p;
            sc.todo_ids[sc.ntodo++] = id;
        }
    }
    if ((rc = rs_store_batch_commit(st, &err)))
        goto out;
    if ((rc = rs_store_sweep_set_status(st, sweep_id, "running", &err)))
        goto out;
    fprintf(stderr, "sweep %lld (%s): %lld points, %lld to run, %lld already done, %d job%s",
            (long long)sweep_id, created ? "new" : "resumed", (long long)grid.points,
            (long long)sc.ntodo, (long long)(grid.points - sc.ntodo), jobs, jobs > 1 ? "s" : "");
    if (shard_n > 1)
        fprintf(stderr, ", shard %ld/%ld", shard_k, shard_n);
    fputc('\n', stderr);
    /* a worker that died meanwhile (its exit status tells, below) must not
     * take the parent with it */
    signal(SIGPIPE, SIG_IGN);
    *sc.todo_next = sc.nreserved; /* (zero-filled mapping: nothing reserved is taken) */
    for (int w = 0; w < nworkers; w++) {
        if (write(go[w], &sc.ntodo, sizeof sc.ntodo) != (ssize_t)sizeof sc.ntodo)
            fprintf(stderr, "rssim sweep: cannot start worker %d: %s\n", w, strerror(errno));
        close(go[w]);
        go[w] = -1;
    }

    int64_t done = 0, failed = 0, bad_input = 0;
    if (nworkers > 0) {
        FILE *in = fdopen(fds[0], "r");
        char line[128];
        int tty = isatty(STDERR_FILENO);
        while (in && fgets(line, sizeof line, in)) {
            long long point;
            int code;
            if (sscanf(line, "%lld %d", &point, &code) != 2)
                continue;
            done++;
            failed += code != 0;
            bad_input += code != 0 && rs_cli_status(code) == 2;
            progress(tty, done, sc.ntodo, failed, t0, point);
        }
        if (in)
            fclose(in);
        else
            close(fds[0]);
        fds[0] = -1;
    }
    char why[256] = ""; /* the first worker that ended abnormally, and how */
    for (int w = 0; w < nworkers; w++) {
        int status = 0;
        pid_t got;
        while ((got = waitpid(pids[w], &status, 0)) < 0 && errno == EINTR)
            ;
        if (got == pids[w] && WIFEXITED(status) && WEXITSTATUS(status) <= 1)
            continue; /* done, or a point failed: it said which, and failed its run */
        char how[160];
        if (got != pids[w])
            snprintf(how, sizeof how, "cannot be waited for (%s)", strerror(errno));
        else if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "was killed by signal %d%s", WTERMSIG(status),
                     WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
        else
            snprintf(how, sizeof how, "ended with status %d", WEXITSTATUS(status));
        /* the points it held: failed with the reason, not left 'running' */
        char reason[320];
        int64_t nf = 0;
        rs_err ferr = { 0 };
        snprintf(reason, sizeof reason, "its sweep worker (pid %d) %s before finishing it",
                 (int)pids[w], how);
        if (!rc && rs_store_claims_fail(st, owners[w], reason, &nf, &ferr))
            fprintf(stderr, "rssim sweep: %s\n", ferr.msg);
        fprintf(stderr, "rssim sweep: worker %d (pid %d) %s; %lld point%s it held failed\n", w,
                (int)pids[w], how, (long long)nf, nf == 1 ? "" : "s");
        if (!why[0])
            snprintf(why, sizeof why, "; worker %d (pid %d) %s", w, (int)pids[w], how);
    }
    nworkers = 0;
    if (!rc) {
        /* a worker that died holding no point left nothing undone: the
         * others took its points (it was named above) */
        int all = done == sc.ntodo && !failed;
        if (rs_store_sweep_set_status(st, sweep_id, !all ? "failed" : shard_n > 1 ? "partial" : "done",
                                      &err))
            rc = err.code;
        /* every point ran and each failure was bad input: the status replay
         * gives, and re-running the same command would not help */
        int input_only = done == sc.ntodo && failed > 0 && failed == bad_input && !why[0];
        if (!rc && input_only)
            rc = rs_fail(&err, RS_EINPUT, "sweep %lld: %lld of %lld points failed on bad input "
                         "(each named above)", (long long)sweep_id, (long long)failed,
                         (long long)sc.ntodo);
        else if (!rc && !all)
            rc = rs_fail(&err, RS_EINTERNAL, "sweep %lld: %lld of %lld points failed or did not "
                         "finish (re-run the same command to resume)%s", (long long)sweep_id,
                         (long long)(sc.ntodo - done + failed), (long long)sc.ntodo, why);
    }
    if (!rc)
        printf("sweep %lld done: %lld points in %s (see 'rssim runs list --db %s --sweep %lld')\n",
               (long long)sweep_id, shard_n > 1 ? (long long)sc.ntodo : (long long)grid.points, db, db,
               (long long)sweep_id);
out:
    /* Failed before the workers were given their points: they hold no
     * database handle yet (a point replayed ahead is only in memory). */
    for (int w = 0; w < nworkers; w++) {
        if (go[w] >= 0)
            close(go[w]);
        kill(pids[w], SIGKILL);
        while (waitpid(pids[w], NULL, 0) < 0 && errno == EINTR)
            ;
    }
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    if (todo_bytes)
        munmap(sc.todo_next, todo_bytes);
    rs_store_close(st);
    rs_config_free(base);
    rs_grid_release(&grid);
    free(spec);
    return rc ? rs_cli_report(&err) : 0;
}
