/*
 * err.h — how rssim library code reports failure.
 *
 * Fallible functions return int: 0 on success, a negative RS_E* code on
 * failure, and fill the caller's rs_err with the code and a message.  The
 * message says what failed first, quotes the subject, and for input gives
 * "file:line: what".  Library code never prints or exits; only sim/cli turns
 * an rs_err into stderr text and an exit status (RS_EINPUT -> 2).
 */
#ifndef RS_ERR_H
#define RS_ERR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

enum {
    RS_OK = 0,
    RS_EINPUT = -1,    /* bad user input: trace, preset, option, value (exit 2) */
    RS_EIO = -2,       /* a file could not be read or written */
    RS_ENOMEM = -3,    /* the simulator itself ran out of memory */
    RS_ENOTFOUND = -4, /* a named thing (run, sweep, plug-in) does not exist */
    RS_EDB = -5,       /* SQLite reported an error */
    RS_EINTERNAL = -6, /* a broken invariant or an external tool failed */
};

typedef struct rs_err {
    int code;        /* one of RS_E*, RS_OK when nothing failed */
    char msg[1024];  /* lowercase, no trailing period */
} rs_err;

/* Fill err (which may be NULL) and return code.  printf-style message. */
int rs_fail(rs_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Bad input at a place in a file: RS_EINPUT with "PATH:LINE: message" — the
 * one form every reader reports a bad line or record in. */
int rs_fail_at(rs_err *err, const char *path, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same with a va_list, for a reader's own printf-style wrapper. */
int rs_vfail_at(rs_err *err, const char *path, uint64_t line, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* Prefix err->msg with "prefix: " (e.g. a file name); returns err->code. */
int rs_err_prefix(rs_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void rs_err_clear(rs_err *err);

#endif
