/*
 * runner.c — what `rssim replay`, `sweep` and `plan` share: building a
 * run's config from a preset and --set overrides, and running stored runs
 * (one here, or several in worker processes side by side) so that each
 * ends 'done' with all its rows or 'failed' with a reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "../schema.h"
#include "../base/config.h"
#include "../run.h"
#include "../store.h"
#include "cli.h"

int rs_cli_preset_path(const char *name, char *r_path, unsigned long cap, rs_err *err)
{
    size_t n = strlen(name);
    const char *dir = rs_cli_data_dir(RS_CLI_PRESETS);

    if (!n)
        return rs_fail(err, RS_EINPUT, "empty preset name");
    if (strchr(name, '/') || (n > 5 && strcmp(name + n - 5, ".conf") == 0)) {
        if ((size_t)snprintf(r_path, cap, "%s", name) >= cap)
            return rs_fail(err, RS_EINPUT, "preset path too long: '%s'", name);
        return 0;
    }
    if ((size_t)snprintf(r_path, cap, "%s/%s.conf", dir, name) >= cap)
        return rs_fail(err, RS_EINPUT, "preset path too long: '%s'", name);
    return 0;
}

int rs_cli_check_input(const char *path, rs_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return rs_fail(err, RS_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return rs_fail(err, RS_EINPUT, "'%s' is not a regular file", path);
    if (access(path, R_OK) != 0)
        return rs_fail(err, RS_EINPUT, "cannot read '%s': %s", path, strerror(errno));
    return 0;
}

static void note_dropped(void *ctx, const char *key, const char *origin)
{
    (void)ctx;
    fprintf(stderr, "rssim: note: %s: key '%s' is not read with the plug-ins chosen; left out of "
            "the run\n", origin, key);
}

int rs_cli_build_config(const char *preset, char *const *sets, int nsets,
                        rs_config **r_cfg, rs_err *err)
{
    char path[4096];
    rs_config *cfg = NULL;
    int rc;

    if ((rc = rs_config_new(&cfg, err)))
        return rc;
    if (preset && ((rc = rs_cli_preset_path(preset, path, sizeof path, err)) ||
                   (rc = rs_config_load_file(cfg, path, err))))
        goto fail;
    for (int i = 0; i < nsets; i++)
        if ((rc = rs_config_set_kv(cfg, sets[i], "--set", err)))
            goto fail;
    if ((rc = rs_schema_finish(cfg, note_dropped, NULL, err)))
        goto fail;
    *r_cfg = cfg;
    return 0;
fail:
    rs_config_free(cfg);
    return rc;
}

int rs_cli_execute_run(rs_store *st, long long run_id, const char *trace, const rs_config *cfg,
                       const char *emit_alloc_trace, rs_result *r_res, unsigned long long *r_events,
                       unsigned long long *r_wall_ns, rs_err *err)
{
    rs_run_opts opts = { .emit_alloc_trace = emit_alloc_trace };
    return rs_cli_execute_run_opts(st, run_id, trace, cfg, &opts, r_res, r_events, r_wall_ns, err);
}

void rs_cli_note_burst(long long run_id, const char *trace, const rs_run_stats *st)
{
    if (!st->burst_records)
        return;
    fprintf(stderr, "rssim: note: run %lld: all %llu records of %s are at one time (t_ns %llu) and were "
            "replayed as they came, so no trim, sample or allocator tick fell between them: its result "
            "is the memory of one burst, not of a workload over time (stored as burst_records_count). "
            "Give the records their times; an osd trace whose records share one time (rssim gen fio) "
            "is replayed as a closed loop with --set client_iodepth=D, fio's --iodepth\n",
            run_id, (unsigned long long)st->burst_records, trace, (unsigned long long)st->burst_t_ns);
}

int rs_cli_execute_run_opts(rs_store *st, long long run_id, const char *trace, const rs_config *cfg,
                            const rs_run_opts *opts, rs_result *r_res,
                            unsigned long long *r_events, unsigned long long *r_wall_ns, rs_err *err)
{
    rs_run_stats stats = { 0 };
    rs_err ignored;
    unsigned long long t0 = rs_cli_now_ns();
    int rc = rs_run_execute_opts(trace, cfg, opts, r_res, &stats, err);
    unsigned long long wall = rs_cli_now_ns() - t0;

    if (rc) {
        rs_store_run_fail(st, run_id, err->msg, &ignored);
        return rc;
    }
    if ((rc = rs_store_run_finish(st, run_id, r_res, stats.events, wall, err)))
        return rc;
    rs_cli_note_burst(run_id, trace, &stats);
    if (r_events)
        *r_events = stats.events;
    if (r_wall_ns)
        *r_wall_ns = wall;
    return 0;
}

/* A worker: its own connection, the run, "rc message" on fd. */
static int job_worker(const char *db, rs_cli_job *job, int fd)
{
    rs_store *st = NULL;
    rs_result res;
    rs_err err = { 0 };
    rs_run_opts opts = { .decode_inline = 1 }; /* the other cores run other jobs */
    char line[sizeof job->msg + 16];
    int rc;

    rs_result_init(&res);
    if (!(rc = rs_store_open(&st, db, &err)))
        rc = rs_cli_execute_run_opts(st, job->run_id, job->trace, job->cfg, &opts, &res, NULL,
                                     NULL, &err);
    rs_result_release(&res);
    rs_store_close(st);
    int n = snprintf(line, sizeof line, "%d %s", rc, rc ? err.msg : "");
    if (n < 0 || (size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    return write(fd, line, (size_t)n) == n ? 0 : 1;
}

/* Worker of job has ended with status: its report on fd into job (rc 0 or
 * a negative RS_E* code, and its message); when it left none, RS_EINTERNAL
 * and why. */
static void job_judge(rs_cli_job *job, int status, int fd)
{
    char line[sizeof job->msg + 16];
    ssize_t got = 0, n;

    while ((n = read(fd, line + got, sizeof line - 1 - (size_t)got)) > 0 ||
           (n < 0 && errno == EINTR))
        got += n > 0 ? n : 0;
    close(fd);
    line[got] = '\0';
    char *end = NULL;
    errno = 0;
    long code = got > 0 ? strtol(line, &end, 10) : 1;
    if (got > 0 && !errno && end != line && *end == ' ' && code <= 0 && code >= RS_EINTERNAL &&
        WIFEXITED(status)) {
        job->rc = (int)code;
        snprintf(job->msg, sizeof job->msg, "%s", end + 1);
        return;
    }
    job->rc = RS_EINTERNAL;
    if (WIFSIGNALED(status))
        snprintf(job->msg, sizeof job->msg, "run %lld: its worker was killed by signal %d%s",
                 job->run_id, WTERMSIG(status),
                 WTERMSIG(status) == SIGKILL ? " (out of memory?)" : "");
    else
        snprintf(job->msg, sizeof job->msg, "run %lld: its worker ended with status %d and no "
                 "report", job->run_id, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int rs_cli_execute_runs(rs_store **st, const char *db, rs_cli_job *jobs, int n, int workers,
                        rs_err *err)
{
    pid_t pids[64];
    int fds[64], slot_job[64], running = 0, next = 0, rc = 0;
    char started[64 * 8];

    if (workers > 64)
        workers = 64;
    if (workers <= 1 || n <= 1) {
        for (int j = 0; j < n; j++)
            jobs[j].rc = -1;
        for (int j = 0; j < n; j++) {
            rs_result res;
            rs_result_init(&res);
            jobs[j].rc = rs_cli_execute_run(*st, jobs[j].run_id, jobs[j].trace, jobs[j].cfg, NULL,
                                            &res, NULL, NULL, err);
            rs_result_release(&res);
            if (jobs[j].rc) { /* stop at the first failure; fail the runs not started */
                rs_err ignored = { 0 };
                for (int i = j + 1; i < n; i++)
                    rs_store_run_fail(*st, jobs[i].run_id, "not started: its batch stopped at a "
                                      "failure", &ignored);
                return jobs[j].rc;
            }
        }
        return 0;
    }
    if (n > (int)sizeof started)
        return rs_fail(err, RS_EINTERNAL, "%d runs at once: at most %zu", n, sizeof started);
    /* No connection may cross a fork (SQLite keeps per-process lock state):
     * this one is closed while the workers run, and opened again after. */
    rs_store_close(*st);
    *st = NULL;
    const pid_t parent = getpid();
    for (int j = 0; j < n; j++) {
        jobs[j].rc = 0;
        jobs[j].msg[0] = '\0';
        started[j] = 0;
    }
    while (next < n || running > 0) {
        while (next < n && running < workers) {
            int p[2];
            pid_t pid = -1;
            fflush(NULL);
            if (pipe(p) == 0 && (pid = fork()) < 0) {
                close(p[0]);
                close(p[1]);
            }
            if (pid < 0) {
                snprintf(jobs[next].msg, sizeof jobs[next].msg, "cannot start a worker: %s",
                         strerror(errno));
                next = n; /* start no more; wait for those running */
                break;
            }
            if (pid == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (getppid() != parent) /* the parent died before the prctl */
                    _exit(1);
                close(p[0]);
                _exit(job_worker(db, &jobs[next], p[1]));
            }
            close(p[1]);
            started[next] = 1;
            pids[running] = pid;
            fds[running] = p[0];
            slot_job[running++] = next++;
        }
        if (running == 0)
            break;
        /* the first of them to end */
        int ended = 0;
        while (!ended) {
            for (int i = 0; i < running && !ended; i++) {
                int status, j = slot_job[i];
                pid_t w = waitpid(pids[i], &status, WNOHANG);
                if (w == 0 || (w < 0 && errno == EINTR))
                    continue;
                if (w == pids[i]) {
                    job_judge(&jobs[j], status, fds[i]);
                } else { /* cannot be waited for: failed, not waited on for ever */
                    jobs[j].rc = RS_EINTERNAL;
                    snprintf(jobs[j].msg, sizeof jobs[j].msg, "run %lld: cannot wait for its "
                             "worker (pid %d): %s", jobs[j].run_id, (int)pids[i], strerror(errno));
                    close(fds[i]);
                }
                pids[i] = pids[running - 1];
                fds[i] = fds[running - 1];
                slot_job[i] = slot_job[--running];
                ended = 1;
                if (jobs[j].rc)
                    next = n; /* as one after another: start no more after a failure */
            }
            if (!ended)
                usleep(20 * 1000);
        }
    }
    if ((rc = rs_store_open(st, db, err)))
        return rc;
    /* Every failed job's run is failed here, with its reason: a worker that
     * failed before its run began (its own connection) or ended without a
     * report has not marked it, and one that has is marked again alike. */
    int first = -1; /* the error returned: the first run that failed, else why none started */
    for (int j = 0; j < n; j++) {
        if (!started[j]) {
            jobs[j].rc = RS_EIO;
            if (!jobs[j].msg[0])
                snprintf(jobs[j].msg, sizeof jobs[j].msg, "not started: its batch stopped at a "
                         "failure");
        }
        if (!jobs[j].rc)
            continue;
        rs_err ignored = { 0 };
        rs_store_run_fail(*st, jobs[j].run_id, jobs[j].msg, &ignored);
        if (first < 0 || (!started[first] && started[j]))
            first = j;
    }
    if (first >= 0)
        rc = rs_fail(err, jobs[first].rc, "%s", jobs[first].msg);
    return rc;
}
