/*
 * presets.h — run a check on every preset file (each .conf in models/presets,
 * or $RSSIM_PRESETS), in a scratch directory removed afterwards.
 */
#ifndef RS_TEST_PRESETS_H
#define RS_TEST_PRESETS_H

#include <dirent.h>
#include <string.h>

#include "check.h"
#include "scratch.h"

/* test(presets_dir, file_name) for every *.conf; checks there are at least
 * 9 (a lost directory must not pass as "no preset failed").  Returns
 * check_done(). */
static int for_each_preset(const char *scratch_name, void (*test)(const char *, const char *))
{
    const char *env = getenv("RSSIM_PRESETS");
    char presets[512];
    snprintf(presets, sizeof presets, "%s", env && *env ? env : "models/presets");
    CHECK(scratch_dir(scratch_name) == 0);
    DIR *d = opendir(presets);
    CHECK_MSG(d != NULL, "no presets in %s", presets);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len > 5 && !strcmp(e->d_name + len - 5, ".conf")) {
            test(presets, e->d_name);
            n++;
        }
    }
    if (d)
        closedir(d);
    CHECK(n >= 9);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return check_done();
}

#endif
