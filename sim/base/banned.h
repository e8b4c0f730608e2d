/*
 * banned.h — functions rssim code must not call, made a compile error (as
 * git's banned.h).  The build force-includes this file first in every
 * project source (CMakeLists.txt: -include sim/base/banned.h), so:
 *
 *   - it first includes the C headers that declare the banned functions;
 *     their include guards keep a later #include of them from declaring the
 *     names again, now that they are macros;
 *   - each banned name becomes a function-like macro, so a call expands to
 *     an undeclared identifier naming the ban ("sorry_strcpy_is_a_banned_
 *     function") and fails to compile, while the bare name (in a comment or
 *     a string) is left alone.
 *
 * Why each is banned, and what to use instead:
 *   strcpy, strcat, strncpy, strncat, sprintf, vsprintf: no bound or a
 *     bound that truncates silently without terminating; use snprintf (and
 *     check it) or memcpy with a known length.
 *   strtok, strtok_r: modify their input and keep hidden state; use strcspn
 *     / strchr, or rs_config's parsers.
 *   atoi, atol, atoll: no error reporting ("12x" is 12, overflow is
 *     undefined); use strtol/strtoull with an end pointer and errno.
 *   gets: no bound at all.
 *   gmtime, localtime, ctime, asctime (and the _r forms but gmtime_r): the
 *     shared static buffer or the wall clock's time zone; library code reads
 *     no clock anyway, and the CLI stamps times in UTC with gmtime_r.
 *
 * This header depends on nothing of rssim's.
 */
#ifndef RS_BANNED_H
#define RS_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RS_BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(...) RS_BANNED(strcpy)
#undef strcat
#define strcat(...) RS_BANNED(strcat)
#undef strncpy
#define strncpy(...) RS_BANNED(strncpy)
#undef strncat
#define strncat(...) RS_BANNED(strncat)
#undef sprintf
#define sprintf(...) RS_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) RS_BANNED(vsprintf)
#undef strtok
#define strtok(...) RS_BANNED(strtok)
#undef strtok_r
#define strtok_r(...) RS_BANNED(strtok_r)
#undef atoi
#define atoi(...) RS_BANNED(atoi)
#undef atol
#define atol(...) RS_BANNED(atol)
#undef atoll
#define atoll(...) RS_BANNED(atoll)
#undef gets
#define gets(...) RS_BANNED(gets)
#undef gmtime
#define gmtime(...) RS_BANNED(gmtime)
#undef localtime
#define localtime(...) RS_BANNED(localtime)
#undef localtime_r
#define localtime_r(...) RS_BANNED(localtime_r)
#undef ctime
#define ctime(...) RS_BANNED(ctime)
#undef ctime_r
#define ctime_r(...) RS_BANNED(ctime_r)
#undef asctime
#define asctime(...) RS_BANNED(asctime)
#undef asctime_r
#define asctime_r(...) RS_BANNED(asctime_r)

#endif
