/*
 * cmd_db.c — `rssim db merge --db OUT IN.db ...`: bring databases together,
 * chiefly the shards of a sweep run as a Slurm job array (each task
 * `rssim sweep --shard K/N --db shard-K.db`).  The result holds the same
 * runs, with the same ids, as one unsharded sweep in a fresh database.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../store.h"
#include "cli.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: rssim db merge [--db OUT] IN.db [IN.db ...]\n\n"
               "Merge each IN database into OUT (default %s), one transaction per\n"
               "input: sweeps are matched by their grid, points are filled from the input\n"
               "where they are done, other runs are appended (unless OUT has them already),\n"
               "plans come with their evaluations, their run ids remapped.\n",
            rs_cli_default_db());
}

int cmd_db(int argc, char **argv)
{
    static const struct option opts[] = {
        { "db", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = rs_cli_default_db();
    rs_err err = { 0 };
    rs_store *st = NULL;
    int c, rc = 0;

    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "merge"))
        return rs_cli_usage_error("db", "unknown subcommand '%s' (merge)", argv[1]);
    optind = 2;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind >= argc)
        return rs_cli_usage_error("db", "merge needs at least one input database");
    if ((rc = rs_cli_mkdir_parent(db, &err)) || (rc = rs_store_open(&st, db, &err)))
        return rs_cli_report(&err);
    for (int i = optind; i < argc && !rc; i++) {
        uint64_t copied = 0;
        if (!strcmp(argv[i], db)) {
            rc = rs_fail(&err, RS_EINPUT, "cannot merge '%s' into itself", db);
            break;
        }
        if ((rc = rs_store_merge(st, argv[i], &copied, &err)) == 0)
            printf("merged %s: %llu done runs\n", argv[i], (unsigned long long)copied);
    }
    rs_store_close(st);
    return rc ? rs_cli_report(&err) : 0;
}
