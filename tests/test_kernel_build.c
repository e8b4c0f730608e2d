/*
 * test_kernel_build.c — the kernel-build generator (traces/gen/kernel_build.c)
 * on a tiny tree written here, replayed against an independent namespace
 * model: parents exist before children, every CREATE'd inode is later
 * UNLINK'd and every MKDIR'd one RMDIR'd (client directories excepted),
 * inodes are never reborn and each build's set is its own, names carry the
 * fixture's lengths, a compilation is CREATE .o, .d, .cmd then UNLINK .d,
 * a file is read (LOOKUP + GETATTR) at most once per build and only the
 * Kconfig files, sources and headers the model allows, time never goes back,
 * op counts and the live-inode peak equal what the fixture predicts, the
 * same seed gives the same bytes; malformed listings fail with FILE:LINE.
 * Then the shipped Linux listing at 2 clients x 1 build: the tree's counts
 * as measured from Debian's linux-source-6.1 6.1.192-3 (78,579 files, 5,095
 * directories below the top, 56 symlinks; 1,625 + 8,541 outputs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gen_util.h"
#include "sim/base/config.h"
#include "traces/gen/gen.h"
#include "traces/gen/kb_tree.h"
#include "traces/trace.h"

extern const rs_gen_ops rs_gen_kernel_build;

/* The fixture: tar order, parents first.  want_read: 1 = a build must read
 * it, 2 = it may (a header), 0 = never. */
static const struct {
    const char *path;
    char type;
    int want_read;
} tree[] = {
    { "Makefile", 'f', 0 },
    { "include", 'd', 0 },
    { "include/linux", 'd', 0 },
    { "include/linux/a.h", 'f', 2 },
    { "include/linux/b.h", 'f', 2 },
    { "include/linux/longer_name.h", 'f', 2 },
    { "kernel", 'd', 0 },
    { "kernel/Kconfig", 'f', 1 },
    { "kernel/fork.c", 'f', 1 },
    { "kernel/exit.c", 'f', 0 }, /* exit.o has no .cmd: no compilation, no read */
    { "kernel/local.h", 'f', 0 }, /* not on the include path */
    { "arch", 'd', 0 },
    { "arch/arm", 'd', 0 },
    { "arch/arm/Kconfig", 'f', 0 }, /* another architecture's */
    { "arch/x86", 'd', 0 },
    { "arch/x86/Kconfig", 'f', 1 },
    { "scripts", 'd', 0 },
    { "scripts/link", 'l', 0 },
};
#define NTREE (sizeof tree / sizeof tree[0])

static const struct {
    const char *path;
    const char *size;
    char type;
    const char *phase;
} outs[] = {
    { ".config", "100", 'f', "defconfig" },
    { "include/config", "0", 'd', "defconfig" },
    { "include/config/auto.conf", "10", 'f', "defconfig" },
    { "kernel/.fork.o.cmd", "3000", 'f', "build" }, /* (3000 - 2500) / 90 = 5 headers */
    { "kernel/built-in.a", "10", 'f', "build" },
    { "kernel/exit.o", "100", 'f', "build" },
    { "kernel/fork.o", "100", 'f', "build" },
    { "vmlinux", "1000", 'f', "build" },
};
#define NOUT (sizeof outs / sizeof outs[0])
#define NCC 1
#define SPAN (NTREE + NOUT + 1 + NCC) /* inodes per build */
#define DFILE (NTREE + NOUT + 1)      /* offset of the .d file */
#define TOP (NTREE + NOUT)            /* offset of the build directory */

static void write_fixture(void)
{
    FILE *f = fopen(path_in("tree.tsv"), "w");
    fprintf(f, "# fixture\npath\tsize\ttype\n");
    for (size_t i = 0; i < NTREE; i++)
        fprintf(f, "%s\t%d\t%c\n", tree[i].path, tree[i].type == 'f' ? 10 : 0, tree[i].type);
    fclose(f);
    f = fopen(path_in("outputs.tsv"), "w");
    fprintf(f, "path\tsize\ttype\tphase\n");
    for (size_t i = 0; i < NOUT; i++)
        fprintf(f, "%s\t%s\t%c\t%s\n", outs[i].path, outs[i].size, outs[i].type, outs[i].phase);
    fclose(f);
}

static size_t name_len(const char *path)
{
    const char *s = strrchr(path, '/');
    return strlen(s ? s + 1 : path);
}

/* Generate with "k=v" settings (NULL-terminated) into path; summary optional. */
static int gen(const char *path, const char *const *kv, char *summary, size_t cap, rs_err *err)
{
    return gen_with(&rs_gen_kernel_build, path, "binary", kv, summary, cap, err);
}

/* What an independent namespace replay of a trace found. */
typedef struct replay {
    uint64_t records, ops[64], peak_live, summary_peak;
    int errors;
} replay;

typedef struct ino_state {
    uint64_t parent;
    uint32_t live_children;
    uint8_t born, alive, is_dir, read;
} ino_state;

#define CHECK_R(cond, ...)                                                    \
    do {                                                                      \
        if (!(cond) && rp->errors++ < 5)                                      \
            CHECK_MSG(cond, __VA_ARGS__);                                     \
    } while (0)

/* Replay the fixture trace of clients x builds and check every record. */
static void replay_fixture(const char *path, uint64_t clients, uint64_t builds, replay *rp)
{
    uint64_t max_ino = 2 + clients + clients * builds * SPAN;
    ino_state *in = calloc(max_ino, sizeof *in);
    uint64_t *step = calloc(clients * builds, sizeof *step); /* compilation sequence position */
    uint64_t last_t = 0, live = 0;
    rs_trace *tr;
    rs_rec r;
    rs_err err;

    memset(rp, 0, sizeof *rp);
    in[1] = (ino_state){ .born = 1, .alive = 1, .is_dir = 1 };
    CHECK_MSG(rs_trace_open(&tr, path, &err) == 0, "%s", err.msg);
    while (rs_trace_next(tr, &r, &err) == 1) {
        rp->records++;
        rp->ops[r.op & 63]++;
        CHECK_R(r.t_ns >= last_t, "time goes back at record %llu", (unsigned long long)rp->records);
        last_t = r.t_ns;
        CHECK_R(r.key >= 2 && r.key < max_ino, "inode %llu out of range", (unsigned long long)r.key);
        if (r.key < 2 || r.key >= max_ino)
            continue;
        ino_state *x = &in[r.key];
        int named = r.op != RS_OP_GETATTR && r.op != RS_OP_READDIR && r.op != RS_OP_OPEN &&
                    r.op != RS_OP_CLOSE;
        uint64_t owner = 0, off = 0, c = r.key - 2; /* client dir: c < clients */
        if (r.key >= 2 + clients) {
            owner = (r.key - 2 - clients) / SPAN;
            off = (r.key - 2 - clients) % SPAN;
            c = owner / builds;
        }
        CHECK_R(r.thread == c, "inode %llu of client %llu used by client %u",
                (unsigned long long)r.key, (unsigned long long)c, r.thread);
        if (named) {
            size_t want = r.key < 2 + clients ? 1 + (size_t)snprintf(NULL, 0, "%llu", (unsigned long long)c)
                          : off < NTREE ? name_len(tree[off].path)
                          : off < NTREE + NOUT ? name_len(outs[off - NTREE].path)
                          : off == TOP ? 1 + (size_t)snprintf(NULL, 0, "%llu", (unsigned long long)(owner % builds))
                          : strlen(".fork.o.d");
            CHECK_R(r.aux == want, "inode %llu: name length %u, want %zu", (unsigned long long)r.key,
                    r.aux, want);
            CHECK_R(r.size_bytes < max_ino && in[r.size_bytes].alive && in[r.size_bytes].is_dir,
                    "%s of %llu in a parent %llu that is not a live directory", rs_op_name(r.op),
                    (unsigned long long)r.key, (unsigned long long)r.size_bytes);
        }
        switch (r.op) {
        case RS_OP_MKDIR:
        case RS_OP_CREATE:
            CHECK_R(!x->born, "inode %llu born twice", (unsigned long long)r.key);
            *x = (ino_state){ .parent = r.size_bytes, .born = 1, .alive = 1,
                              .is_dir = r.op == RS_OP_MKDIR };
            if (r.size_bytes < max_ino)
                in[r.size_bytes].live_children++;
            if (++live > rp->peak_live)
                rp->peak_live = live;
            if (r.key >= 2 + clients) {
                int want_dir = off == TOP || (off < NTREE && tree[off].type == 'd') ||
                               (off >= NTREE && off < NTREE + NOUT && outs[off - NTREE].type == 'd');
                CHECK_R(want_dir == (r.op == RS_OP_MKDIR), "inode %llu (offset %llu) made by %s",
                        (unsigned long long)r.key, (unsigned long long)off, rs_op_name(r.op));
            }
            break;
        case RS_OP_LOOKUP:
            CHECK_R(x->alive && x->parent == r.size_bytes, "LOOKUP of %llu not live under %llu",
                    (unsigned long long)r.key, (unsigned long long)r.size_bytes);
            CHECK_R(!x->read, "inode %llu read twice in one build", (unsigned long long)r.key);
            CHECK_R(off < NTREE && tree[off].want_read, "LOOKUP of offset %llu (%s)",
                    (unsigned long long)off, off < NTREE ? tree[off].path : "an output");
            x->read = 1;
            break;
        case RS_OP_GETATTR:
            CHECK_R(x->alive && x->read == 1, "GETATTR of %llu without its LOOKUP",
                    (unsigned long long)r.key);
            x->read = 2;
            break;
        case RS_OP_READDIR:
            CHECK_R(x->alive && x->is_dir, "READDIR of %llu", (unsigned long long)r.key);
            break;
        case RS_OP_UNLINK:
        case RS_OP_RMDIR:
            CHECK_R(x->alive && x->parent == r.size_bytes && x->is_dir == (r.op == RS_OP_RMDIR),
                    "%s of %llu", rs_op_name(r.op), (unsigned long long)r.key);
            CHECK_R(x->live_children == 0, "RMDIR of non-empty %llu", (unsigned long long)r.key);
            x->alive = 0;
            if (r.size_bytes < max_ino)
                in[r.size_bytes].live_children--;
            live--;
            break;
        default:
            CHECK_R(0, "unexpected op %u", r.op);
        }
        /* the compilation: CREATE fork.o, CREATE .d, CREATE .cmd, UNLINK .d, in order */
        if (r.key >= 2 + clients) {
            static const struct { int op; uint64_t off; } seq[] = {
                { RS_OP_CREATE, NTREE + 6 }, { RS_OP_CREATE, DFILE },
                { RS_OP_CREATE, NTREE + 3 }, { RS_OP_UNLINK, DFILE },
            };
            uint64_t *k = &step[owner];
            int in_seq = (off == NTREE + 6 || off == DFILE || off == NTREE + 3) &&
                         (r.op == RS_OP_CREATE || r.op == RS_OP_UNLINK);
            if (in_seq && *k < 4) { /* then rm -rf unlinks .o and .cmd */
                CHECK_R(seq[*k].op == r.op && seq[*k].off == off,
                        "compilation step %llu of build %llu is %s of offset %llu",
                        (unsigned long long)*k, (unsigned long long)owner, rs_op_name(r.op),
                        (unsigned long long)off);
                (*k)++;
            }
        }
    }
    rs_trace_close(tr);
    for (uint64_t i = 2; i < max_ino; i++) {
        if (i < 2 + clients) {
            CHECK_R(in[i].born && in[i].alive, "client directory %llu", (unsigned long long)i);
            continue;
        }
        uint64_t off = (i - 2 - clients) % SPAN;
        CHECK_R(in[i].born && !in[i].alive, "inode %llu (offset %llu) born %d alive %d",
                (unsigned long long)i, (unsigned long long)off, in[i].born, in[i].alive);
        if (off < NTREE && tree[off].want_read == 1)
            CHECK_R(in[i].read == 2, "%s not read", tree[off].path);
    }
    for (uint64_t s = 0; s < clients * builds; s++)
        CHECK_R(step[s] == 4, "build %llu: %llu compilation steps", (unsigned long long)s,
                (unsigned long long)step[s]);
    free(in);
    free(step);
}

static void test_fixture(void)
{
    char tree_kv[600], outs_kv[600], summary[512];
    snprintf(tree_kv, sizeof tree_kv, "tree=%s", path_in("tree.tsv"));
    snprintf(outs_kv, sizeof outs_kv, "outputs=%s", path_in("outputs.tsv"));
    rs_err err;
    replay rp;
    unsigned long long peak = 0;
    size_t ndirs = 0, nfiles = 0;

    for (size_t i = 0; i < NTREE; i++)
        *(tree[i].type == 'd' ? &ndirs : &nfiles) += 1;
    for (size_t i = 0; i < NOUT; i++)
        *(outs[i].type == 'd' ? &ndirs : &nfiles) += 1;

    /* lockstep: 3 clients x 2 builds, all starting together, same durations */
    const char *lock[] = { tree_kv, outs_kv, "clients=3", "builds=2", "seed=7", "start-spread=0",
                           "stagger=0", "build-min=100s", "build-max=100s", "overlap=true", NULL };
    CHECK_MSG(gen(path_in("lock.bin"), lock, summary, sizeof summary, &err) == 0, "%s", err.msg);
    replay_fixture(path_in("lock.bin"), 3, 2, &rp);
    CHECK_EQ_U64(rp.ops[RS_OP_MKDIR], 3 + 6 * (ndirs + 1));
    CHECK_EQ_U64(rp.ops[RS_OP_RMDIR], 6 * (ndirs + 1));
    CHECK_EQ_U64(rp.ops[RS_OP_READDIR], 6 * (ndirs + 1));
    CHECK_EQ_U64(rp.ops[RS_OP_CREATE], 6 * (nfiles + NCC));
    CHECK_EQ_U64(rp.ops[RS_OP_UNLINK], 6 * (nfiles + NCC));
    CHECK_EQ_U64(rp.ops[RS_OP_LOOKUP], rp.ops[RS_OP_GETATTR]);
    /* per build: 2 Kconfig + fork.c, plus 1..3 distinct of the 3 headers */
    CHECK(rp.ops[RS_OP_LOOKUP] >= 6 * 4 && rp.ops[RS_OP_LOOKUP] <= 6 * 6);
    /* all 6 builds full at once (the last build step is vmlinux, no .d live):
     * the client dirs plus 6 x (build dir + tree + outputs) */
    CHECK_EQ_U64(rp.peak_live, 3 + 6 * (1 + NTREE + NOUT));
    CHECK(sscanf(strstr(summary, "peak ") ? strstr(summary, "peak ") : "", "peak %llu", &peak) == 1);
    CHECK_EQ_U64(peak, rp.peak_live);

    /* one build after another: one tree per client at a time */
    const char *seq[] = { tree_kv, outs_kv, "clients=2", "builds=3", "seed=7", "start-spread=0",
                          "overlap=false", NULL };
    CHECK_MSG(gen(path_in("seq.bin"), seq, NULL, 0, &err) == 0, "%s", err.msg);
    replay_fixture(path_in("seq.bin"), 2, 3, &rp);
    CHECK_EQ_U64(rp.peak_live, 2 + 2 * (1 + NTREE + NOUT));

    /* default timing: random client starts, overlapped builds */
    const char *def[] = { tree_kv, outs_kv, "clients=4", "builds=3", "seed=11", NULL };
    CHECK_MSG(gen(path_in("a.bin"), def, NULL, 0, &err) == 0, "%s", err.msg);
    replay_fixture(path_in("a.bin"), 4, 3, &rp);
    CHECK_EQ_U64(rp.records, rp.ops[RS_OP_MKDIR] + rp.ops[RS_OP_CREATE] + rp.ops[RS_OP_LOOKUP] +
                                 rp.ops[RS_OP_GETATTR] + rp.ops[RS_OP_READDIR] +
                                 rp.ops[RS_OP_UNLINK] + rp.ops[RS_OP_RMDIR]);
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca, cb;
    while (same && ((ca = getc(fa)) != EOF) | ((cb = getc(fb)) != EOF))
        same = ca == cb;
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static void test_determinism(void)
{
    char tree_kv[600], outs_kv[600];
    rs_err err;
    snprintf(tree_kv, sizeof tree_kv, "tree=%s", path_in("tree.tsv"));
    snprintf(outs_kv, sizeof outs_kv, "outputs=%s", path_in("outputs.tsv"));
    const char *s5[] = { tree_kv, outs_kv, "clients=5", "builds=2", "seed=5", NULL };
    const char *s6[] = { tree_kv, outs_kv, "clients=5", "builds=2", "seed=6", NULL };
    CHECK(gen(path_in("d1.bin"), s5, NULL, 0, &err) == 0);
    CHECK(gen(path_in("d2.bin"), s5, NULL, 0, &err) == 0);
    CHECK(gen(path_in("d3.bin"), s6, NULL, 0, &err) == 0);
    CHECK(same_file(path_in("d1.bin"), path_in("d2.bin")));
    CHECK(!same_file(path_in("d1.bin"), path_in("d3.bin")));
    /* events caps the record count */
    const char *cap[] = { tree_kv, outs_kv, "clients=5", "builds=2", "seed=5", "events=10", NULL };
    replay rp = { 0 };
    CHECK(gen(path_in("d4.bin"), cap, NULL, 0, &err) == 0);
    rs_trace *tr;
    rs_rec r;
    if (rs_trace_open(&tr, path_in("d4.bin"), &err) == 0) {
        while (rs_trace_next(tr, &r, &err) == 1)
            rp.records++;
        rs_trace_close(tr);
    }
    CHECK_EQ_U64(rp.records, 10);
}

/* A listing with one bad line: the error names FILE:LINE. */
static void bad_listing(const char *tree_text, const char *outs_text, const char *want_file,
                        int want_line, const char *want_what)
{
    char tree_kv[600], outs_kv[600], want[700];
    rs_err err = { 0 };
    FILE *f = fopen(path_in("bad-tree.tsv"), "w");
    fputs(tree_text, f);
    fclose(f);
    f = fopen(path_in("bad-outs.tsv"), "w");
    fputs(outs_text, f);
    fclose(f);
    snprintf(tree_kv, sizeof tree_kv, "tree=%s", path_in("bad-tree.tsv"));
    snprintf(outs_kv, sizeof outs_kv, "outputs=%s", path_in("bad-outs.tsv"));
    const char *kv[] = { tree_kv, outs_kv, "clients=1", "builds=1", NULL };
    int rc = gen(path_in("bad.bin"), kv, NULL, 0, &err);
    snprintf(want, sizeof want, "%s:%d: ", path_in(want_file), want_line);
    CHECK_MSG(rc == RS_EINPUT && strncmp(err.msg, want, strlen(want)) == 0 &&
                  strstr(err.msg, want_what),
              "rc %d, message '%s', want '%s...%s'", rc, err.msg, want, want_what);
}

static void test_bad_input(void)
{
    const char *ok_tree = "path\tsize\ttype\na\t0\td\na/x\t1\tf\n";
    const char *ok_outs = "path\tsize\ttype\tphase\na/x.o\t1\tf\tbuild\n";
    bad_listing("path\tsize\ttype\na\t0\td\na/x\t1\n", ok_outs, "bad-tree.tsv", 3, "fields");
    bad_listing("# c\npath\tsize\ttype\na\tlots\td\n", ok_outs, "bad-tree.tsv", 3, "bad size");
    bad_listing("a\t0\tq\n", ok_outs, "bad-tree.tsv", 1, "bad type");
    bad_listing("a/x\t1\tf\n", ok_outs, "bad-tree.tsv", 1, "parent directory");
    bad_listing("a\t0\td\na\t0\td\n", ok_outs, "bad-tree.tsv", 2, "duplicate");
    bad_listing(ok_tree, "path\tsize\ttype\tphase\na/x.o\t1\tf\tinstall\n", "bad-outs.tsv", 2,
                "bad phase");
    bad_listing(ok_tree, "b/x.o\t1\tf\tbuild\n", "bad-outs.tsv", 1, "parent directory");
    bad_listing(ok_tree, "a/x\t1\td\tbuild\n", "bad-outs.tsv", 1, "type");
    bad_listing(ok_tree, "g\t0\td\tbuild\ng/c\t1\tf\tdefconfig\n", "bad-outs.tsv", 2,
                "before its parent");
    bad_listing(ok_tree, "ok\t1\tf\tbuild\n\n", "bad-outs.tsv", 2, "empty line");
}

/* The shipped listing: the measured tree and build, 2 clients x 1 build. */
static void test_shipped(void)
{
    rs_kb_tmpl t;
    rs_kb_cc_model m = { .cmd_fixed_bytes = 2500, .cmd_bytes_per_header = 90 };
    rs_err err;
    const char *tree_path = RSSIM_TRACES_DIR "/linux-6.1-tree.tsv.zst";
    const char *outs_path = RSSIM_TRACES_DIR "/linux-6.1-build-outputs.tsv.zst";

    if (rs_kb_tmpl_load(&t, tree_path, outs_path, &m, &err) != 0) {
        CHECK_MSG(0, "%s", err.msg);
        return;
    }
    /* linux-source-6.1 tarball: 78,579 files, 5,096 dirs (with the top), 56 symlinks */
    CHECK_EQ_U64(t.tree_count[0], 78579);
    CHECK_EQ_U64(t.tree_count[1], 5095);
    CHECK_EQ_U64(t.tree_count[2], 56);
    uint64_t def = 0, build = 0, files = 0, dirs = 0;
    for (int i = 0; i < 3; i++) {
        def += t.out_count[RS_KB_DEFCONFIG][i];
        build += t.out_count[RS_KB_BUILD][i];
    }
    CHECK_EQ_U64(def, 1625);
    CHECK_EQ_U64(build, 8541);
    CHECK_EQ_U64(t.out_rewrites, 0);
    /* the build log's 2,761 CC + 52 AS, plus host and link objects that also have a .cmd */
    CHECK_MSG(t.n_cc >= 2813 && t.n_cc <= 2813 + 60, "%u compilations", t.n_cc);
    files = t.tree_count[0] + t.tree_count[2];
    dirs = t.tree_count[1];
    for (int p = RS_KB_DEFCONFIG; p <= RS_KB_BUILD; p++) {
        files += t.out_count[p][0] + t.out_count[p][2];
        dirs += t.out_count[p][1];
    }
    uint32_t n_cc = t.n_cc;
    rs_kb_tmpl_release(&t);

    const char *kv[] = { "clients=2", "builds=1", "seed=3", NULL };
    char summary[512];
    uint64_t ops[64] = { 0 }, n = 0, last = 0;
    int back = 0;
    rs_trace *tr;
    rs_rec r;
    CHECK_MSG(gen(path_in("linux.bin"), kv, summary, sizeof summary, &err) == 0, "%s", err.msg);
    if (rs_trace_open(&tr, path_in("linux.bin"), &err) != 0) {
        CHECK_MSG(0, "%s", err.msg);
        return;
    }
    while (rs_trace_next(tr, &r, &err) == 1) {
        ops[r.op & 63]++;
        back += r.t_ns < last;
        last = r.t_ns;
        n++;
    }
    rs_trace_close(tr);
    CHECK(!back);
    CHECK_EQ_U64(ops[RS_OP_MKDIR], 2 + 2 * (dirs + 1));
    CHECK_EQ_U64(ops[RS_OP_RMDIR], 2 * (dirs + 1));
    CHECK_EQ_U64(ops[RS_OP_READDIR], 2 * (dirs + 1));
    CHECK_EQ_U64(ops[RS_OP_CREATE], 2 * (files + n_cc));
    CHECK_EQ_U64(ops[RS_OP_UNLINK], 2 * (files + n_cc));
    CHECK_EQ_U64(ops[RS_OP_LOOKUP], ops[RS_OP_GETATTR]);
    printf("shipped listing, 2 x 1: %llu records; %s\n", (unsigned long long)n, summary);
    unlink(path_in("linux.bin"));
}

int main(void)
{
    const char *names[] = { "tree.tsv", "outputs.tsv", "lock.bin", "seq.bin", "a.bin", "d1.bin",
                            "d2.bin", "d3.bin", "d4.bin", "bad-tree.tsv", "bad-outs.tsv" };
    if (scratch_dir("kb"))
        return 1;
    write_fixture();
    test_fixture();
    test_determinism();
    test_bad_input();
    test_shipped();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(path_in(names[i]));
    rmdir(dir);
    return check_done();
}
