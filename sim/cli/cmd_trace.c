/*
 * cmd_trace.c — `rssim trace convert|stats|import`: re-encode a trace (text
 * <-> binary, plain/.gz/.zst), print its statistics, or import a block trace
 * (traces/import_block.h) as an osd trace or strace output
 * (traces/import_strace.h) as an mds trace.
 *
 * Both stream the trace (bounded memory; stats keeps one hash-set entry per
 * distinct key).  convert writes OUT.tmp and renames it on success, so a
 * failed conversion leaves no OUT behind.  Bad input exits 2 with
 * "rssim: FILE:LINE: what".
 */
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../traces/import_block.h"
#include "../../traces/trace.h"
#include "../base/config.h"
#include "../registry.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rssim trace convert IN OUT [--format text|binary]\n"
               "       rssim trace stats IN [--format NAME[:SPEC]]\n"
               "       rssim trace import --from FORMAT[:SPEC] IN -o OUT [--to osd|kv]\n"
               "                          [--object-size 4M] [--block-size 512]\n"
               "                          [--interval TIME] [--format text|binary]\n"
               "       rssim trace import --from strace IN -o OUT [--root DIR] [--cwd DIR]\n"
               "                          [--clients N|pid] [--format text|binary]\n\n"
               "convert  re-encode a trace; the format defaults to the other one of IN's,\n"
               "         compression follows OUT's name (.gz gzip, .zst zstd, else none)\n"
               "stats    records, time span, op counts, keys and bytes of a trace\n"
               "import   another tool's trace as an rssim trace: block traces (MSR-Cambridge\n"
               "         CSV, start_block nblocks lists) as osd or kv traces, libCacheSim\n"
               "         traces (oracleGeneral, csv, txt) as kv, glibc mtrace logs as alloc,\n"
               "         strace -f -tt output as an mds trace\n\n"
               "Input format and compression are detected from the content.\n"
               "See docs/trace-format.md.\n");
}

static int is_help(const char *a)
{
    return !strcmp(a, "-h") || !strcmp(a, "--help");
}

/* Write every record of tr (closed here) to a new trace OUT, of format and
 * tr's daemon kind, at most max_records of them (0: no limit; how says how
 * to raise it); OUT.tmp is removed on any failure.  0 or the CLI status. */
static int copy_trace(rs_trace *tr, const char *out, const char *format, uint64_t max_records,
                      const char *how, uint64_t *r_records, rs_err *err)
{
    rs_trace_writer *w = NULL;
    rs_rec rec;
    int rc;

    *r_records = 0;
    if ((rc = rs_cli_mkdir_parent(out, err)) ||
        (rc = rs_trace_writer_open(&w, out, format, rs_trace_daemon(tr), err))) {
        rs_trace_close(tr);
        return rs_cli_report(err);
    }
    rs_cli_tmp_guard(out);
    if (max_records)
        rs_trace_writer_limit(w, max_records, how);
    while ((rc = rs_trace_next(tr, &rec, err)) == 1 && !(rc = rs_trace_write(w, &rec, err)))
        ++*r_records;
    rs_trace_close(tr);
    if (rc) {
        rs_trace_writer_abort(w);
        rs_cli_tmp_unguard();
        return rs_cli_report(err);
    }
    rc = rs_trace_writer_close(w, err);
    rs_cli_tmp_unguard();
    return rc ? rs_cli_report(err) : 0;
}

static int convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *format = NULL;
    rs_err err = { 0 };
    rs_trace *tr = NULL;
    const void *ops;
    int rc;

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            printf("usage: rssim trace convert IN OUT [--format text|binary]\n\n"
                   "Re-encode trace IN as OUT.  --format defaults to the other format of IN\n"
                   "(text -> binary, binary -> text).  OUT is compressed by its name: .gz\n"
                   "(gzip), .zst (zstd), anything else plain.  OUT is written as OUT.tmp and\n"
                   "renamed when complete; on any error no OUT is left.\n");
            return 0;
        } else if (!strcmp(argv[i], "--format")) {
            if (++i == argc)
                return rs_cli_usage_error("trace convert", "--format needs a value");
            format = argv[i];
        } else if (!strncmp(argv[i], "--format=", 9)) {
            format = argv[i] + 9;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return rs_cli_usage_error("trace convert", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else if (!out) {
            out = argv[i];
        } else {
            return rs_cli_usage_error("trace convert", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!in || !out)
        return rs_cli_usage_error("trace convert", "needs IN and OUT");
    if (format && rs_registry_get(&rs_reg_trace_format, format, &ops, &err))
        return rs_cli_report(&err);
    if ((rc = rs_trace_open(&tr, in, &err)))
        return rs_cli_report(&err);
    for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c && !format; c++)
        if ((*c)->encode && strcmp((*c)->name, rs_trace_format(tr)) != 0)
            format = (*c)->name; /* the other encoding */
    uint64_t records;
    return copy_trace(tr, out, format, 0, NULL, &records, &err);
}

static void line_u64(const char *name, unsigned long long v)
{
    printf("%-15s %llu\n", name, v);
}

static void line_str(const char *name, const char *v)
{
    printf("%-15s %s\n", name, v);
}

static int stats(int argc, char **argv)
{
    const char *in = NULL, *format = NULL;
    rs_trace_summary sum;
    rs_err err = { 0 };
    rs_trace *tr;
    char name[32];

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            printf("usage: rssim trace stats IN [--format NAME[:SPEC]]\n\n"
                   "Print one aligned 'name value' line each: file, format, compression,\n"
                   "daemon, records, t_first_ns, t_last_ns, duration_s, op_<OP> for every op\n"
                   "present, distinct_keys, bytes_total (sum of size_bytes) and\n"
                   "bytes_distinct (sum over distinct keys of their last nonzero size).\n"
                   "--format reads IN as another tool's trace, as replay --format does.\n");
            return 0;
        } else if (!strcmp(argv[i], "--format") || !strncmp(argv[i], "--format=", 9)) {
            if (argv[i][8] == '=')
                format = argv[i] + 9;
            else if (++i == argc)
                return rs_cli_usage_error("trace stats", "--format needs a value");
            else
                format = argv[i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return rs_cli_usage_error("trace stats", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return rs_cli_usage_error("trace stats", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!in)
        return rs_cli_usage_error("trace stats", "needs IN");
    if (format ? rs_trace_open_foreign(&tr, in, format, &err) : rs_trace_open(&tr, in, &err))
        return rs_cli_report(&err);
    if (rs_trace_summarize_from(tr, &sum, &err)) {
        rs_trace_close(tr);
        return rs_cli_report(&err);
    }
    unsigned long long span_ns = sum.t_last_ns - sum.t_first_ns;
    line_str("file", in);
    line_str("format", rs_trace_format(tr));
    line_str("compression", rs_trace_compression(tr));
    line_str("daemon", rs_trace_daemon(tr));
    rs_trace_close(tr);
    line_u64("records", sum.records);
    line_u64("t_first_ns", sum.t_first_ns);
    line_u64("t_last_ns", sum.t_last_ns);
    printf("%-15s %llu.%09llu\n", "duration_s", span_ns / 1000000000ull, span_ns % 1000000000ull);
    for (unsigned op = 0; op <= RS_OP__MAX; op++) {
        if (!sum.op_count[op] || !rs_op_name(op))
            continue;
        snprintf(name, sizeof name, "op_%s", rs_op_name(op));
        line_u64(name, sum.op_count[op]);
    }
    line_u64("distinct_keys", sum.distinct_keys);
    line_u64("bytes_total", sum.bytes_total);
    line_u64("bytes_distinct", sum.bytes_distinct);
    return 0;
}

/* The value of option argv[*i] ("--name value" or "--name=value"); NULL
 * when argv[*i] is not --name. */
static const char *opt_value(int argc, char **argv, int *i, const char *name, int *r_missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];

    *r_missing = 0;
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 == argc) {
        *r_missing = 1;
        return NULL;
    }
    return argv[++*i];
}

/* Import through a foreign reader (rs_trace_open_foreign): the options
 * given become spec fields of the same names, so a reader that has no
 * such field refuses them, naming it. */
static int import_foreign(const char *in, const char *out, const char *format, const char *from,
                          const char *to, const char *object, const char *block,
                          const char *interval, int64_t max_records)
{
    const char *keys[] = { "to", "object-size", "block-size", "interval" };
    const char *vals[] = { to, object, block, interval };
    char spec[1024];
    size_t n = (size_t)snprintf(spec, sizeof spec, "%s", from);
    int sep = strchr(from, ':') != NULL, rc;
    rs_trace *tr = NULL;
    rs_err err = { 0 };
    const void *ops;
    uint64_t records = 0;

    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (vals[k] && n < sizeof spec) {
            n += (size_t)snprintf(spec + n, sizeof spec - n, "%s%s=%s", sep ? "," : ":", keys[k],
                                  vals[k]);
            sep = 1;
        }
    if (n >= sizeof spec)
        return rs_cli_usage_error("trace import", "--from and its options are too long");
    if (!format)
        format = rs_cli_format_for_name(out);
    if ((rc = rs_registry_get(&rs_reg_trace_format, format, &ops, &err)) ||
        (rc = rs_cli_check_input(in, &err)) || (rc = rs_trace_open_foreign(&tr, in, spec, &err)))
        return rs_cli_report(&err);
    char how[96], daemon[16];
    snprintf(how, sizeof how, "--max-records %lld; --max-records N raises it",
             (long long)max_records);
    snprintf(daemon, sizeof daemon, "%s", rs_trace_daemon(tr));
    if ((rc = copy_trace(tr, out, format, (uint64_t)max_records, how, &records, &err)))
        return rc;
    printf("wrote %s: %llu records (daemon %s) from %s\n", out, (unsigned long long)records,
           daemon, in);
    return 0;
}

static int import(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *format = NULL, *object = NULL, *block = NULL;
    const char *interval = NULL, *to = NULL, *object_given = NULL, *clients = NULL, *max = NULL;
    rs_import_opts opts = { .from = NULL, .block_bytes = 512 };
    int64_t max_records = (int64_t)RS_TRACE_MAX_RECORDS;
    rs_import_stats st;
    rs_trace_writer *w = NULL;
    rs_err err = { 0 };
    const void *ops;
    int rc;

    for (int i = 1; i < argc; i++) {
        static const char *const names[] = { "--from", "--output", "-o", "--format",
                                             "--object-size", "--block-size", "--interval", "--to",
                                             "--root", "--cwd", "--clients", "--max-records" };
        const char **slots[] = { &opts.from, &out, &out, &format, &object_given, &block, &interval,
                                 &to, &opts.root, &opts.cwd, &clients, &max };
        const char *v = NULL;
        int missing = 0, k;

        if (is_help(argv[i])) {
            char importers[128];
            printf("usage: rssim trace import --from FORMAT[:SPEC] IN -o OUT [--to osd|kv]\n"
                   "                          [--object-size SIZE] [--block-size SIZE]\n"
                   "                          [--interval TIME] [--format text|binary]\n"
                   "                          [--max-records N]\n"
                   "       rssim trace import --from strace IN -o OUT [--root DIR] [--cwd DIR]\n"
                   "                          [--clients N|pid] [--format text|binary]\n\n"
                   "Read another tool's trace IN (plain, gzip or zstd) and write it as an rssim\n"
                   "trace OUT.  A block trace becomes an osd trace (--to osd, the default): one\n"
                   "READ/WRITE record per RADOS object an I/O touches (key = offset / object\n"
                   "size, aux = offset inside the object, size_bytes = length); or with --to kv\n"
                   "one GET (read) or SET (write) per page of --object-size (default 4K) it\n"
                   "touches.  libCacheSim traces become kv traces, mtrace logs alloc traces.\n"
                   "SPEC is the reader's 'key=value,...' list (docs/trace-format.md §7); the\n"
                   "options --to, --object-size, --block-size and --interval are the same as\n"
                   "spec fields of those names, and a reader that has no such field refuses them.\n"
                   "--from strace reads strace -f -tt output and writes an mds trace of its file\n"
                   "system calls under --root.\n\n"
                   "  --from FORMAT   one of: %s\n",
                   rs_trace_codec_names('i', importers, sizeof importers));
            for (const rs_trace_codec_ops *const *c = rs_trace_codecs; *c; c++)
                if ((*c)->import_line || (*c)->import_file)
                    printf("  --from %-8s %s\n", (*c)->name, (*c)->doc);
            printf("  --to            osd or kv: what a block trace becomes (default osd)\n"
                   "  --object-size   RADOS object size (default 4M), or with --to kv the page\n"
                   "                  size (default 4K)\n"
                   "  --block-size    bytes per block of a blocks list (default 512)\n"
                   "  --interval      time between two I/Os of a blocks list (default 0)\n"
                   "  --root DIR      strace: only paths under DIR are on CephFS (default: the\n"
                   "                  first process's cwd)\n"
                   "  --cwd DIR       strace: the first process's cwd (default: from strace -y)\n"
                   "  --clients N|pid strace: N clients by process tree (default 1), or one\n"
                   "                  per process\n"
                   "  --format        text or binary; default text when OUT ends in .tsv or\n"
                   "                  .txt (before .gz/.zst), else binary\n"
                   "  --max-records   the most records OUT may hold (default %llu); an import\n"
                   "                  that would write more stops and leaves no OUT\n\n"
                   "Bad input (wrong field count, non-numeric, negative offset, zero length,\n"
                   "unknown op, time going backwards) exits 2 with 'IN:LINE: what' and leaves\n"
                   "no OUT.  See docs/trace-format.md, 'Block traces' and 'Recorded file\n"
                   "system workloads'.\n",
                   (unsigned long long)RS_TRACE_MAX_RECORDS);
            return 0;
        }
        for (k = 0; k < (int)(sizeof names / sizeof names[0]); k++)
            if ((v = opt_value(argc, argv, &i, names[k], &missing)) || missing)
                break;
        if (missing)
            return rs_cli_usage_error("trace import", "%s needs a value", argv[i]);
        if (v) {
            *slots[k] = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return rs_cli_usage_error("trace import", "unknown option '%s'", argv[i]);
        } else if (!in) {
            in = argv[i];
        } else {
            return rs_cli_usage_error("trace import", "unexpected argument '%s'", argv[i]);
        }
    }
    char importers[128];
    rs_trace_codec_names('i', importers, sizeof importers);
    if (!opts.from)
        return rs_cli_usage_error("trace import", "needs --from (%s)", importers);
    if (!in || !out)
        return rs_cli_usage_error("trace import", "needs IN and -o OUT");
    if (object_given)
        object = object_given;
    if (max && (rs_parse_int(max, &max_records) != 0 || max_records < 1))
        return rs_cli_usage_error("trace import", "bad --max-records '%s': expected a count >= 1", max);
    const char *colon = strchr(opts.from, ':');
    char from_name[64];
    snprintf(from_name, sizeof from_name, "%.*s", colon ? (int)(colon - opts.from) : 63, opts.from);
    const rs_trace_codec_ops *from = rs_trace_codec_find(from_name);
    if (from && from->open_foreign && (!from->import_line || colon || to))
        return import_foreign(in, out, format, opts.from, to, object_given, block, interval,
                              max_records);
    unsigned reads = from ? from->import_opts : 0;
    const char *unread = block && !(reads & RS_IMPORT_OPT_BLOCK_SIZE)         ? "--block-size"
                         : interval && !(reads & RS_IMPORT_OPT_INTERVAL)      ? "--interval"
                         : (opts.root || opts.cwd) && !(reads & RS_IMPORT_OPT_ROOT)
                             ? (opts.root ? "--root" : "--cwd")
                         : clients && !(reads & RS_IMPORT_OPT_CLIENTS)        ? "--clients"
                         : object && from && from->import_file                ? "--object-size"
                         : to                                                 ? "--to"
                                                                              : NULL;
    if (unread)
        return rs_cli_usage_error("trace import", "--from %s reads no %s", opts.from, unread);
    if (rs_parse_size(object ? object : "4M", &opts.object_bytes) != 0)
        return rs_cli_usage_error("trace import", "bad --object-size '%s'", object);
    opts.clients = 1;
    if (clients && strcmp(clients, "pid") != 0) {
        char *end;
        unsigned long v = strtoul(clients, &end, 10);
        if (!*clients || *end || !isdigit((unsigned char)*clients) || v < 1 || v > 65535)
            return rs_cli_usage_error("trace import", "bad --clients '%s' (1 .. 65535, or pid)",
                                      clients);
        opts.clients = (uint32_t)v;
    } else if (clients) {
        opts.clients = 0;
    }
    if (block && rs_parse_size(block, &opts.block_bytes) != 0)
        return rs_cli_usage_error("trace import", "bad --block-size '%s'", block);
    if (interval && rs_parse_duration(interval, &opts.interval_ns) != 0)
        return rs_cli_usage_error("trace import", "bad --interval '%s'", interval);
    if (!format)
        format = rs_cli_format_for_name(out);
    if ((rc = rs_registry_get(&rs_reg_trace_format, format, &ops, &err)) ||
        (rc = rs_cli_check_input(in, &err)) || (rc = rs_cli_mkdir_parent(out, &err)) ||
        (rc = rs_trace_writer_open(&w, out, format, from ? rs_import_daemon(from) : "osd", &err)))
        return rs_cli_report(&err);
    rs_cli_tmp_guard(out);
    char how[96];
    snprintf(how, sizeof how, "--max-records %lld; --max-records N raises it",
             (long long)max_records);
    rs_trace_writer_limit(w, (uint64_t)max_records, how);
    if ((rc = rs_import_block(in, &opts, w, &st, &err))) {
        rs_trace_writer_abort(w);
        rs_cli_tmp_unguard();
        return rs_cli_report(&err);
    }
    rc = rs_trace_writer_close(w, &err);
    rs_cli_tmp_unguard();
    if (rc)
        return rs_cli_report(&err);
    if (from && from->import_file) {
        printf("wrote %s: %llu records (%llu by client 0, the tree before the recording) from "
               "%llu calls (%llu under the root) of %llu processes on %llu lines\n", out,
               (unsigned long long)st.records, (unsigned long long)st.setup_records,
               (unsigned long long)st.calls, (unsigned long long)st.ios,
               (unsigned long long)st.processes, (unsigned long long)st.lines);
        return 0;
    }
    printf("wrote %s: %llu I/Os (%llu reads, %llu writes) as %llu records from %llu lines\n", out,
           (unsigned long long)st.ios, (unsigned long long)st.reads,
           (unsigned long long)st.writes, (unsigned long long)st.records,
           (unsigned long long)st.lines);
    return 0;
}

/* The one piece of process state a signal handler needs: the temporary
 * file to remove (async-signal-safe: unlink, sigaction, raise only). */
static char guarded_tmp[4096];

static void remove_tmp_and_die(int sig)
{
    if (guarded_tmp[0])
        unlink(guarded_tmp);
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static const int guarded_signals[] = { SIGINT, SIGTERM, SIGHUP };

void rs_cli_tmp_guard(const char *out_path)
{
    struct sigaction sa = { .sa_handler = remove_tmp_and_die };
    sigemptyset(&sa.sa_mask);
    if ((size_t)snprintf(guarded_tmp, sizeof guarded_tmp, "%s.tmp", out_path) >= sizeof guarded_tmp)
        guarded_tmp[0] = '\0'; /* too long for the writer too: it fails first */
    for (size_t i = 0; i < sizeof guarded_signals / sizeof guarded_signals[0]; i++)
        sigaction(guarded_signals[i], &sa, NULL);
}

void rs_cli_tmp_unguard(void)
{
    struct sigaction dfl = { .sa_handler = SIG_DFL };
    sigemptyset(&dfl.sa_mask);
    for (size_t i = 0; i < sizeof guarded_signals / sizeof guarded_signals[0]; i++)
        sigaction(guarded_signals[i], &dfl, NULL);
    guarded_tmp[0] = '\0';
}

static const rs_command subcommands[] = {
    { .name = "convert", .run = convert, .summary = "re-encode a trace" },
    { .name = "stats", .run = stats, .summary = "print a trace's statistics" },
    { .name = "import", .run = import, .summary = "a block trace as an osd trace, or strace output as an mds trace" },
};

int cmd_trace(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (is_help(argv[1])) {
        usage(stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    return rs_cli_usage_error("trace", "unknown subcommand '%s' (convert, stats, import)", argv[1]);
}
