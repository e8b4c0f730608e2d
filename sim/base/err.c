/* err.c — rs_err helpers; see err.h. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int rs_fail(rs_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int rs_vfail_at(rs_err *err, const char *path, uint64_t line, const char *fmt, va_list ap)
{
    char msg[sizeof err->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return rs_fail(err, RS_EINPUT, "%s:%llu: %s", path, (unsigned long long)line, msg);
}

int rs_fail_at(rs_err *err, const char *path, uint64_t line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = rs_vfail_at(err, path, line, fmt, ap);
    va_end(ap);
    return rc;
}

int rs_err_prefix(rs_err *err, const char *fmt, ...)
{
    char prefix[512], old[sizeof err->msg];
    va_list ap;

    if (!err)
        return RS_EINTERNAL;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* prefix, ": ", then as much of the old message as fits */
    size_t n = strlen(prefix), room = sizeof err->msg - 1;
    if (n > room)
        n = room;
    memcpy(err->msg, prefix, n);
    if (n + 2 <= room) {
        memcpy(err->msg + n, ": ", 2);
        n += 2;
    }
    size_t m = strnlen(old, sizeof old - 1);
    if (m > room - n)
        m = room - n;
    memcpy(err->msg + n, old, m);
    err->msg[n + m] = '\0';
    return err->code;
}

void rs_err_clear(rs_err *err)
{
    if (err) {
        err->code = RS_OK;
        err->msg[0] = '\0';
    }
}
