/* paths.c — the data folders of the rssim program; see paths.h. */
#include "paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RSSIM_BIN_TO_DATA
#define RSSIM_BIN_TO_DATA "../share/rssim"
#endif
#define SOURCE_MARKER "rssim-source-dir"

static const struct {
    const char *env;       /* overriding variable */
    const char *in_source; /* folder in the source tree */
    const char *installed; /* folder under <prefix>/share/rssim */
} kinds[] = {
    [RS_CLI_PRESETS] = { .env = "RSSIM_PRESETS", .in_source = "models/presets", .installed = "presets" },
    [RS_CLI_SCRIPTS] = { .env = "RSSIM_SCRIPTS", .in_source = "scripts", .installed = "scripts" },
    [RS_CLI_TRACES] = { .env = "RSSIM_TRACES", .in_source = "traces", .installed = "traces" },
};

#define NKINDS (sizeof kinds / sizeof kinds[0])

static int is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* The folder this program is in ("." when /proc/self/exe cannot be read). */
static void program_dir(char *r_dir, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", r_dir, cap - 1);
    char *slash;

    if (n <= 0 || (size_t)n >= cap - 1) {
        snprintf(r_dir, cap, ".");
        return;
    }
    r_dir[n] = '\0';
    slash = strrchr(r_dir, '/');
    if (slash == r_dir)
        slash[1] = '\0';
    else if (slash)
        *slash = '\0';
}

/* The source tree named by the build folder's marker file, or 0. */
static int source_tree(const char *bin, char *r_src, size_t cap)
{
    char marker[4096];
    FILE *f;
    int found = 0;

    if ((size_t)snprintf(marker, sizeof marker, "%s/" SOURCE_MARKER, bin) >= sizeof marker ||
        !(f = fopen(marker, "r")))
        return 0;
    if (fgets(r_src, (int)cap, f)) {
        r_src[strcspn(r_src, "\n")] = '\0';
        found = r_src[0] == '/';
    }
    fclose(f);
    return found;
}

static void find(rs_cli_data kind, char *r_dir, size_t cap)
{
    const char *env = getenv(kinds[kind].env);
    char bin[4096], src[4096];

    if (env && *env) {
        snprintf(r_dir, cap, "%s", env);
        return;
    }
    program_dir(bin, sizeof bin);
    if (source_tree(bin, src, sizeof src) &&
        (size_t)snprintf(r_dir, cap, "%s/%s", src, kinds[kind].in_source) < cap && is_dir(r_dir))
        return;
    /* <bin>/../share/rssim written as <prefix>/share/rssim */
    const char *rel = RSSIM_BIN_TO_DATA;
    char *slash;
    while (!strncmp(rel, "../", 3) && (slash = strrchr(bin, '/')) && slash != bin &&
           strcmp(slash, "/..") != 0) {
        *slash = '\0';
        rel += 3;
    }
    int n = snprintf(r_dir, cap, "%s/%s/%s", bin, rel, kinds[kind].installed);
    if (n < 0 || (size_t)n >= cap)
        snprintf(r_dir, cap, "%s", kinds[kind].installed); /* a program path of 4 KiB */
}

const char *rs_cli_data_dir(rs_cli_data kind)
{
    static char dirs[NKINDS][4096];

    if ((unsigned)kind >= NKINDS)
        return ".";
    if (!dirs[kind][0])
        find(kind, dirs[kind], sizeof dirs[kind]);
    return dirs[kind];
}

const char *rs_cli_data_env(rs_cli_data kind)
{
    return (unsigned)kind < NKINDS ? kinds[kind].env : "";
}

const char *rs_cli_scripts_dir(void)
{
    return rs_cli_data_dir(RS_CLI_SCRIPTS);
}
