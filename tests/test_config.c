/* test_config.c — units, presets, validation messages. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/schema.h"
#include "check.h"
#include "sim/base/config.h"

static void test_units(void)
{
    uint64_t v;
    CHECK(rs_parse_size("8G", &v) == 0 && v == 8ull << 30);
    CHECK(rs_parse_size("64M", &v) == 0 && v == 64ull << 20);
    CHECK(rs_parse_size("64MiB", &v) == 0 && v == 64ull << 20);
    CHECK(rs_parse_size("4K", &v) == 0 && v == 4096);
    CHECK(rs_parse_size("1T", &v) == 0 && v == 1ull << 40);
    CHECK(rs_parse_size("1.5K", &v) == 0 && v == 1536);
    CHECK(rs_parse_size("123", &v) == 0 && v == 123);
    CHECK(rs_parse_size("-1", &v) != 0);
    CHECK(rs_parse_size("12Q", &v) != 0);
    CHECK(rs_parse_size("", &v) != 0);
    CHECK(rs_parse_duration("200ms", &v) == 0 && v == 200000000ull);
    CHECK(rs_parse_duration("50ms", &v) == 0 && v == 50000000ull);
    CHECK(rs_parse_duration("0.2", &v) == 0 && v == 200000000ull);
    CHECK(rs_parse_duration("5s", &v) == 0 && v == 5000000000ull);
    CHECK(rs_parse_duration("10us", &v) == 0 && v == 10000ull);
    CHECK(rs_parse_duration("7ns", &v) == 0 && v == 7ull);
    CHECK(rs_parse_duration("3 parsecs", &v) != 0);
    CHECK(rs_parse_duration("-1s", &v) != 0);
    int b;
    CHECK(rs_parse_bool("true", &b) == 0 && b == 1);
    CHECK(rs_parse_bool("off", &b) == 0 && b == 0);
    CHECK(rs_parse_bool("maybe", &b) != 0);
}

static void test_validate(void)
{
    rs_config *cfg;
    rs_err err = { 0 };
    CHECK(rs_config_new(&cfg, &err) == 0);
    CHECK(rs_config_set(cfg, "kv_cache_limit", "8G", &err) == 0);
    CHECK(rs_config_validate(cfg, &err) == 0);
    CHECK(rs_config_size(cfg, "kv_cache_limit") == 8ull << 30);
    CHECK(rs_config_duration_ns(cfg, "sample_interval") == 100000000ull); /* default */
    CHECK(rs_config_set(cfg, "kv_cache_limit", "lots", &err) == 0);
    CHECK(rs_config_validate(cfg, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "'lots'") && strstr(err.msg, "'kv_cache_limit'"), "%s", err.msg);
    CHECK(rs_config_set(cfg, "kv_cache_limit", "1G", &err) == 0);
    CHECK(rs_config_set_kv(cfg, "no_such_key=3", "--set", &err) == 0);
    CHECK(rs_config_validate(cfg, &err) == RS_EINPUT);
    CHECK_MSG(strstr(err.msg, "unknown key 'no_such_key'") && strstr(err.msg, "'3'"), "%s", err.msg);
    CHECK(rs_config_set_kv(cfg, "novalue", "--set", &err) == RS_EINPUT);
    rs_config_free(cfg);
}

/* A key's range is checked by validation, with a message for each shape. */
static void expect_range(const char *key, const char *value, const char *why)
{
    rs_config *cfg;
    rs_err err = { 0 };
    CHECK(rs_config_new(&cfg, &err) == 0);
    /* a daemon that reads the key, or the key is refused as foreign */
    if (!strncmp(key, "mds_", 4))
        CHECK(rs_config_set(cfg, "daemon", "mds", &err) == 0);
    if (!strncmp(key, "osd_", 4))
        CHECK(rs_config_set(cfg, "daemon", "osd", &err) == 0);
    CHECK(rs_config_set(cfg, key, value, &err) == 0);
    int rc = rs_config_validate(cfg, &err);
    if (!why) {
        CHECK_MSG(rc == 0, "%s=%s: %s", key, value, err.msg);
    } else {
        char want[160];
        snprintf(want, sizeof want, "bad value '%s' for key '%s': %s", value, key, why);
        CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, want), "%s=%s: got '%s', want '%s'", key,
                  value, err.msg, want);
    }
    rs_config_free(cfg);
}

static void test_ranges(void)
{
    expect_range("kv_threads", "0", "expected 1..65535");
    expect_range("kv_threads", "65536", "expected 1..65535");
    expect_range("kv_threads", "65535", NULL);
    expect_range("sample_interval", "0", "must be > 0");
    expect_range("sample_interval", "1ns", NULL);
    expect_range("mds_cache_trim_threshold", "0", "must be >= 1");
    expect_range("steady_from", "1", "expected 0 <= x < 1");
    expect_range("steady_from", "0", NULL);
    expect_range("osd_onode_extra_bytes", "4G", "expected 0 <= x < 4G");
    expect_range("osd_onode_extra_bytes", "4095M", NULL);
}

/* A choice-valued key: validation refuses anything else, listing the
 * choices; rs_config_choice gives the value's index. */
static void test_choices(void)
{
    static const rs_param table[] = {
        { .key = "recall", .type = RS_PT_STRING, .def = "octopus", .doc = "d",
          .choices = "luminous|octopus|reef" },
        { .key = "label", .type = RS_PT_STRING, .def = "x", .doc = "free text" },
        { .key = NULL },
    };
    rs_config *cfg;
    rs_err err = { 0 };
    CHECK(rs_config_new_with(&cfg, table, &err) == 0);
    CHECK(rs_config_choice(cfg, "recall") == 1); /* the default */
    CHECK(rs_config_choice(cfg, "label") == -1); /* no choices */
    CHECK(rs_config_choice(cfg, "nokey") == -1);
    const struct { const char *value; int index; } v[] = {
        { "luminous", 0 }, { "octopus", 1 }, { "reef", 2 }, { "lumin", -1 }, { "luminousx", -1 },
        { "octopus|reef", -1 }, { "Reef", -1 }, { "|", -1 },
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        rs_config_set(cfg, "recall", v[i].value, &err);
        int rc = rs_config_validate(cfg, &err);
        CHECK_MSG(rs_config_choice(cfg, "recall") == v[i].index, "%s: index %d", v[i].value,
                  rs_config_choice(cfg, "recall"));
        if (v[i].index >= 0) {
            CHECK_MSG(rc == 0, "%s: %s", v[i].value, err.msg);
        } else {
            char want[160];
            snprintf(want, sizeof want,
                     "bad value '%s' for key 'recall': expected one of luminous, octopus, reef", v[i].value);
            CHECK_MSG(rc == RS_EINPUT && strstr(err.msg, want), "%s: '%s'", v[i].value, err.msg);
        }
    }
    rs_config_set(cfg, "label", "anything", &err);
    rs_config_set(cfg, "recall", "reef", &err);
    CHECK(rs_config_validate(cfg, &err) == 0);
    rs_config_free(cfg);
    /* the plug-ins' choice keys, through the run's schema */
    expect_range("mds_recall", "octopus", NULL);
    expect_range("mds_recall", "reef", "expected one of luminous, octopus");
    expect_range("jemalloc_purge", "sometimes", "expected one of decay, never, immediate");
}

static void test_preset_file(void)
{
    char path[] = "/tmp/rssim-test-presetXXXXXX";
    int fd = mkstemp(path);
    rs_config *cfg, *copy;
    rs_err err = { 0 };
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# a comment\n\nkv_cache_limit = 8G  # trailing\ntrim_interval=50ms\nbogus_key = 1\n");
    fclose(f);
    CHECK(rs_config_new(&cfg, &err) == 0);
    CHECK(rs_config_load_file(cfg, path, &err) == 0);
    CHECK(rs_config_count(cfg) == 3);
    CHECK(rs_config_validate(cfg, &err) == RS_EINPUT);
    /* the message points at the file and line of the bad key */
    char want[128];
    snprintf(want, sizeof want, "%s:5: unknown key 'bogus_key'", path);
    CHECK_MSG(strstr(err.msg, want) != NULL, "%s", err.msg);
    CHECK(rs_config_clone(cfg, &copy, &err) == 0);
    CHECK(rs_config_hash(copy) == rs_config_hash(cfg));
    rs_config_set(copy, "trim_interval", "200ms", &err);
    CHECK(rs_config_hash(copy) != rs_config_hash(cfg));
    rs_config_free(copy);
    rs_config_free(cfg);
    unlink(path);
}

int main(void)
{
    test_units();
    test_validate();
    test_ranges();
    test_choices();
    test_preset_file();
    return check_done();
}
