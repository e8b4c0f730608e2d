/*
 * main.c — the rssim program: dispatch to a subcommand from commands[].
 * Each subcommand parses its own options and prints its own -h.
 */
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rssim_git.h" /* RSSIM_GIT, generated in the build folder */

static const rs_command commands[] = {
    { .name = "gen", .run = cmd_gen, .summary = "generate a trace (kv, alloc, fio, kernel-build)" },
    { .name = "trace", .run = cmd_trace, .summary = "convert a trace or print its statistics" },
    { .name = "replay", .run = cmd_replay, .summary = "replay a trace through the models and store the run" },
    { .name = "sweep", .run = cmd_sweep, .summary = "replay a grid of parameter values on worker processes" },
    { .name = "calibrate", .run = cmd_calibrate, .summary = "fit one parameter so a metric changes by a target (GSL Brent)" },
    { .name = "observe", .run = cmd_observe, .summary = "import a daemon's own dumps over time (mempools, perf, heap stats, RSS) as a run" },
    { .name = "fit", .run = cmd_fit, .summary = "fit RSS = base + k x accounted to observed runs (GSL least squares, 95 % CI)" },
    { .name = "node", .run = cmd_node, .summary = "several daemons on one node: the peak of their summed RSS against RAM" },
    { .name = "plan", .run = cmd_plan, .summary = "the largest limit at which N daemons' predicted RSS fits in RAM" },
    { .name = "validate", .run = cmd_validate, .summary = "check an allocator model against the real allocator" },
    { .name = "runs", .run = cmd_runs, .summary = "list, show or export stored runs" },
    { .name = "plot", .run = cmd_plot, .summary = "draw stored runs with gnuplot (PNG, SVG or text)" },
    { .name = "report", .run = cmd_report, .summary = "one self-contained HTML page about a sweep or runs (plots inline)" },
    { .name = "compare", .run = cmd_compare, .summary = "two runs or sweeps side by side, with each metric's change" },
    { .name = "list", .run = cmd_list, .summary = "list plug-ins and their parameters" },
    { .name = "db", .run = cmd_db, .summary = "merge databases (the shards of a Slurm job array)" },
};

static void usage(FILE *f)
{
    fprintf(f, "usage: rssim <command> [options]   (rssim <command> -h for its options)\n"
               "       rssim --version | --help\n\n"
               "rssim %s predicts the RSS of a cache-bearing daemon from a trace.\n\ncommands:\n",
            RSSIM_VERSION);
    int w = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if ((int)strlen(commands[i].name) > w)
            w = (int)strlen(commands[i].name);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        rs_cli_help_row(f, &commands[i].name, &w, 1, commands[i].summary);
    fprintf(f, "\noptions:\n"
               "  -h, --help     this help (also: rssim help)\n"
               "  --version      the version and the git commit it was built from\n\n"
               "env: RSSIM_PRESETS, RSSIM_SCRIPTS, RSSIM_TRACES override the folders of the\n"
               "presets, gnuplot templates and bundled traces (default: share/rssim beside\n"
               "the installed program, or the source tree of a build folder)\n");
}

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    /* sweep, node, plan and validate wait for their worker processes: a
     * SIGCHLD ignored by whoever started rssim (the setting survives exec)
     * would have the kernel reap them unseen, and waitpid fail with ECHILD */
    signal(SIGCHLD, SIG_DFL);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("rssim %s (git %s)\n", RSSIM_VERSION, RSSIM_GIT);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "rssim: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
