/*
 * fuzz_config.c — libFuzzer target over the config parsers.
 *
 * The input is a preset file's text, then (after the first 0xff byte, if
 * any) `--set` lines, one key=value per line: the text is written to a
 * scratch file and loaded (rs_config_load_file, sim/base/config.c), each
 * line is set (rs_config_set_kv) and the whole config finished against the
 * schema (rs_schema_finish, sim/schema.c: plug-in resolution, defaults,
 * range and choice checks).  Every value is also given to the unit parsers
 * (size, duration, int, double, bool).  Besides "no crash, no leak, no UB",
 * a failure must be bad input (RS_EINPUT) saying where (a preset error
 * names the file, a --set one "--set"), a finished config must hash the
 * same as its clone and validate again, and a size or duration that parses
 * must print back (as plain digits) to the same number.
 * Build and run: scripts/fuzz (clang, -DRSSIM_FUZZ=ON).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/base/config.h"
#include "sim/schema.h"

static void units(const char *v)
{
    uint64_t u, back;
    int64_t i;
    double d;
    int b;
    char buf[32];

    if (rs_parse_size(v, &u) == 0) {
        snprintf(buf, sizeof buf, "%" PRIu64, u);
        if (rs_parse_size(buf, &back) != 0 || back != u)
            __builtin_trap(); /* a size that does not read back */
    }
    if (rs_parse_duration(v, &u) == 0) {
        snprintf(buf, sizeof buf, "%" PRIu64 "ns", u);
        if (rs_parse_duration(buf, &back) != 0 || back != u)
            __builtin_trap();
    }
    (void)rs_parse_int(v, &i);
    (void)rs_parse_double(v, &d);
    (void)rs_parse_bool(v, &b);
}

static void input_error(int rc, const rs_err *err, const char *where)
{
    if (rc != RS_EINPUT)
        __builtin_trap(); /* a bad preset or --set is the user's input */
    if (where && !strstr(err->msg, where))
        __builtin_trap(); /* and says where it is */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    const uint8_t *sep = memchr(data, 0xff, size);
    size_t text = sep ? (size_t)(sep - data) : size;
    rs_config *cfg, *copy;
    rs_err err = { 0 };
    int rc;

    snprintf(path, sizeof path, "/tmp/rssim-fuzz-config-%ld.conf", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, text, f) != text || fclose(f) != 0)
        __builtin_trap();
    if (rs_config_new(&cfg, &err))
        __builtin_trap();
    rc = rs_config_load_file(cfg, path, &err);
    unlink(path);
    if (rc) {
        input_error(rc, &err, path);
        rs_config_free(cfg);
        return 0;
    }
    if (sep) {
        size_t n = size - text - 1;
        char *sets = malloc(n + 1);
        if (!sets)
            __builtin_trap();
        memcpy(sets, sep + 1, n);
        sets[n] = '\0';
        for (char *line = sets, *next; line; line = next) {
            next = strchr(line, '\n');
            if (next)
                *next++ = '\0';
            const char *eq = strchr(line, '=');
            if (eq)
                units(eq + 1);
            if ((rc = rs_config_set_kv(cfg, line, "--set", &err))) {
                input_error(rc, &err, NULL);
                free(sets);
                rs_config_free(cfg);
                return 0;
            }
        }
        free(sets);
    }
    rc = rs_schema_finish(cfg, NULL, NULL, &err);
    if (rc) {
        input_error(rc, &err, NULL);
        rs_config_free(cfg);
        return 0;
    }
    if (rs_config_validate(cfg, &err))
        __builtin_trap(); /* finished but not valid */
    if (rs_config_clone(cfg, &copy, &err))
        __builtin_trap();
    if (rs_config_hash(copy) != rs_config_hash(cfg))
        __builtin_trap();
    for (size_t i = 0; i < rs_config_count(cfg); i++) {
        const char *k, *v;
        rs_config_at(cfg, i, &k, &v);
        if (!k || !v || strcmp(rs_config_raw(copy, k) ? rs_config_raw(copy, k) : "", v) != 0)
            __builtin_trap(); /* the clone differs */
    }
    rs_config_free(copy);
    rs_config_free(cfg);
    return 0;
}
