/* cli.c — helpers shared by the subcommands; see cli.h. */
#include "cli.h"
#include "../base/config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int rs_cli_status(int code)
{
    if (code == 0)
        return 0;
    return code == RS_EINPUT || code == RS_ENOTFOUND ? 2 : 1;
}

int rs_cli_report(const rs_err *err)
{
    fprintf(stderr, "rssim: %s\n", err->msg[0] ? err->msg : "unknown error");
    return rs_cli_status(err->code ? err->code : RS_EINTERNAL);
}

int rs_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "rssim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'rssim %s -h')\n", cmd);
    return 2;
}

int rs_cli_parse_fraction(const char *s, double *r_v)
{
    char buf[64];
    size_t n = strlen(s);
    double v;
    if (!n || n >= sizeof buf)
        return -1;
    memcpy(buf, s, n + 1);
    int pct = buf[n - 1] == '%';
    if (pct)
        buf[n - 1] = '\0';
    if (rs_parse_double(buf, &v) || !isfinite(v))
        return -1;
    *r_v = pct ? v / 100 : v;
    return 0;
}

const char *rs_cli_default_db(void)
{
    return "out/rssim.db";
}

int rs_cli_mkdir_parent(const char *path, rs_err *err)
{
    char buf[4096];
    size_t n = strlen(path);

    if (n >= sizeof buf)
        return rs_fail(err, RS_EINPUT, "path too long: '%s'", path);
    memcpy(buf, path, n + 1);
    char *slash = strrchr(buf, '/');
    if (!slash || slash == buf)
        return 0;
    *slash = '\0';
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return rs_fail(err, RS_EIO, "cannot create folder '%s': %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return rs_fail(err, RS_EIO, "cannot create folder '%s': %s", buf, strerror(errno));
    return 0;
}

const char *rs_cli_format_for_name(const char *path)
{
    static const char *const zip[] = { ".gz", ".zst" }, *const text[] = { ".tsv", ".txt" };
    size_t n = strlen(path);

    for (size_t i = 0; i < 2; i++) {
        size_t k = strlen(zip[i]);
        if (n > k && !strcmp(path + n - k, zip[i]))
            n -= k;
    }
    for (size_t i = 0; i < 2; i++)
        if (n > 4 && !strncmp(path + n - 4, text[i], 4))
            return "text";
    return "binary";
}

long long rs_cli_parse_id(const char *s)
{
    char *end;
    long long v;

    if (!s || *s < '0' || *s > '9')
        return 0;
    v = strtoll(s, &end, 10);
    return *end == '\0' && v > 0 ? v : 0;
}

void rs_cli_size_unit(double max_bytes, const char **r_unit, double *r_scale)
{
    static const double kib = 1024.0, mib = 1048576.0, gib = 1073741824.0;
    *r_unit = max_bytes >= 10 * gib ? "GiB" : max_bytes >= mib ? "MiB" : "KiB";
    *r_scale = max_bytes >= 10 * gib ? gib : max_bytes >= mib ? mib : kib;
}

void rs_cli_ns_unit(double max_ns, const char **r_unit, double *r_scale)
{
    *r_unit = max_ns >= 1e9 ? "s" : max_ns >= 1e6 ? "ms" : "µs";
    *r_scale = max_ns >= 1e9 ? 1e9 : max_ns >= 1e6 ? 1e6 : 1e3;
}

unsigned long long rs_cli_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

void rs_cli_help_row(FILE *f, const char *const *cells, const int *widths, int ncols,
                     const char *text)
{
    int col = ncols > 0 ? 2 : 0; /* a table row is indented, a paragraph is not */
    fputs(ncols > 0 ? "  " : "", f);
    for (int i = 0; i < ncols; i++) {
        fprintf(f, "%-*s  ", widths[i], cells[i] ? cells[i] : "");
        col += widths[i] + 2;
    }
    int width = RS_CLI_HELP_COLS - col < RS_CLI_HELP_MIN_TEXT ? col + RS_CLI_HELP_MIN_TEXT
                                                              : RS_CLI_HELP_COLS;
    int at = col; /* the column the next character goes to */
    const char *s = text ? text : "";
    while (*s) {
        if (*s == '\n') { /* an explicit line break */
            fprintf(f, "\n%*s", col, "");
            at = col;
            s++;
            while (*s == ' ')
                s++;
            continue;
        }
        size_t word = strcspn(s, " \n");
        if (at > col && at + 1 + (int)word > width) {
            fprintf(f, "\n%*s", col, "");
            at = col;
        } else if (at > col) {
            fputc(' ', f);
            at++;
        }
        fwrite(s, 1, word, f);
        at += (int)word;
        s += word;
        while (*s == ' ')
            s++;
    }
    fputc('\n', f);
}
