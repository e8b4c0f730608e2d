/*
 * test_claim.c — claiming a sweep point with its owner
 * (rs_store_point_claim, sim/store.c): a pending point is taken; a point
 * another live owner holds is busy (skipped, not computed twice: issue 17,
 * two identical sweeps on one database both ran every point and the second
 * exited 1); the same owner may claim again; a dead owner's claim and a
 * failed point are taken over; a done point is reported done, never
 * claimed; and a claim by two processes at once goes to one of them.
 */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "scratch.h"
#include "sim/base/result.h"
#include "sim/schema.h"
#include "sim/store.h"

static int alive_answer;

static int fake_alive(const char *owner, void *ctx)
{
    (void)ctx;
    (void)owner;
    return alive_answer;
}

static int64_t make_point(rs_store *st, int64_t sweep_id, int64_t point, rs_config *cfg)
{
    rs_run_meta meta = {
        .kind = "predicted", .trace_path = "t.tsv",
        .trace_sha256 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        .preset = "kv-small", .seed = 1, .label = "p", .sweep_id = 0, .point_index = -1,
    };
    rs_err err = { 0 };
    int64_t id = 0;
    CHECK_MSG(rs_store_sweep_point(st, sweep_id, point, &meta, cfg, &id, &err) == 0, "%s", err.msg);
    return id;
}

int main(void)
{
    rs_store *st = NULL;
    rs_config *cfg = NULL;
    rs_err err = { 0 };
    int64_t sweep = 0, r0, r1, r2;
    int created = 0, claim = -1;
    char status[16];

    if (scratch_dir("claim") || rs_config_new(&cfg, &err))
        return 1;
    const char *db = path_in("claim.db");
    CHECK_MSG(rs_store_open(&st, db, &err) == 0, "%s", err.msg);
    if (!st)
        return check_done();
    rs_sweep_meta sm = { .spec_hash = "h", .trace_path = "t.tsv", .trace_sha256 = "x", .preset = "kv-small",
                         .spec = "--vary a=1,2,3", .varied_keys = "a", .points = 3, .jobs = 1 };
    CHECK_MSG(rs_store_sweep_open(st, &sm, &sweep, &created, &err) == 0, "%s", err.msg);
    r0 = make_point(st, sweep, 0, cfg);
    r1 = make_point(st, sweep, 1, cfg);
    r2 = make_point(st, sweep, 2, cfg);

    alive_answer = 1;
    CHECK(rs_store_point_claim(st, r0, "A", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_TAKEN);
    CHECK(rs_store_run_status(st, r0, status, &err) == 0 && !strcmp(status, "running"));
    CHECK(rs_store_point_claim(st, r0, "B", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_BUSY);
    CHECK(rs_store_point_claim(st, r0, "A", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_TAKEN);
    alive_answer = 0; /* A died: B takes the point over */
    CHECK(rs_store_point_claim(st, r0, "B", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_TAKEN);
    alive_answer = 1;
    CHECK(rs_store_point_claim(st, r0, "A", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_BUSY);

    /* done: never claimed again, by anyone */
    rs_result res;
    rs_result_init(&res);
    CHECK_MSG(rs_store_run_finish(st, r0, &res, 1, 1, &err) == 0, "%s", err.msg);
    rs_result_release(&res);
    CHECK(rs_store_point_claim(st, r0, "A", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_DONE);
    CHECK(rs_store_point_claim(st, r0, "B", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_DONE);

    /* failed by its live owner: anyone may run it again */
    CHECK(rs_store_point_claim(st, r1, "A", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_TAKEN);
    CHECK(rs_store_run_fail(st, r1, "boom", &err) == 0);
    CHECK(rs_store_point_claim(st, r1, "B", fake_alive, NULL, &claim, &err) == 0 && claim == RS_CLAIM_TAKEN);
    CHECK(rs_store_point_claim(st, 424242, "B", fake_alive, NULL, &claim, &err) == RS_ENOTFOUND);

    /* two processes claim r2 at once: exactly one takes it */
    rs_store_close(st);
    st = NULL;
    pid_t kids[2];
    for (int k = 0; k < 2; k++) {
        if ((kids[k] = fork()) == 0) {
            rs_store *cst = NULL;
            int c = -1;
            char owner[2] = { (char)('P' + k), 0 };
            if (rs_store_open(&cst, db, &err) ||
                rs_store_point_claim(cst, r2, owner, fake_alive, NULL, &c, &err))
                _exit(9);
            rs_store_close(cst);
            _exit(c);
        }
    }
    int taken = 0, busy = 0;
    for (int k = 0; k < 2; k++) {
        int ws = 0;
        waitpid(kids[k], &ws, 0);
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) != 9);
        taken += WIFEXITED(ws) && WEXITSTATUS(ws) == RS_CLAIM_TAKEN;
        busy += WIFEXITED(ws) && WEXITSTATUS(ws) == RS_CLAIM_BUSY;
    }
    CHECK_MSG(taken == 1 && busy == 1, "taken %d, busy %d", taken, busy);
    rs_config_free(cfg);
    return check_done();
}
