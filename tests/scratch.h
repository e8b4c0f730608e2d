/*
 * scratch.h — a test's scratch directory and paths in it.
 */
#ifndef RS_TEST_SCRATCH_H
#define RS_TEST_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

static char dir[256];

/* Make the scratch directory $TMPDIR/rssim-test-NAME-XXXXXX; 0 on success. */
static int scratch_dir(const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/rssim-test-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* name inside the scratch directory (four results stay valid at once). */
static const char *path_in(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

#endif
