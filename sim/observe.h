/*
 * observe.h — read what operators capture from a running Ceph daemon (its
 * admin-socket dumps, tcmalloc's text, the kernel's RSS) into one run's
 * samples (docs/observe.md).
 *
 * A capture set is a list of files, each the raw output of one command at
 * one moment, named  T-WHAT[.EXT]  where T is the Unix time of the capture
 * in seconds (decimal fraction allowed) and WHAT says which output it is:
 *   dump_mempools  `ceph daemon X dump_mempools` (JSON)
 *   perf_dump      `ceph daemon X perf dump` (JSON; mds_mem, bluestore-pricache)
 *   cache_status   `ceph daemon mds.X cache status` (JSON)
 *   session_ls     `ceph daemon mds.X session ls` (JSON array)
 *   config_get     `ceph daemon X config get KEY` (JSON; the limit)
 *   heap_stats     `ceph tell X heap stats` (tcmalloc's MALLOC: text)
 *   proc_status    /proc/PID/status (VmRSS, VmHWM)
 *   ps_rss         `ps -o rss -p PID` (KiB, with or without the header)
 * Files with the same T form one sample.  The JSON is read with jansson;
 * each field read is named by its JSON path in errors.  Which fields and
 * pools exist depends on the release (observe.c's release table).
 */
#ifndef RS_OBSERVE_H
#define RS_OBSERVE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/result.h"

#define RS_OBSERVE_MAX_FILE_BYTES (64u << 20) /* one dump; a large session ls fits */
#define RS_OBSERVE_MAX_FILES 400000
#define RS_OBSERVE_MAX_SAMPLES 100000

typedef struct rs_observe rs_observe;

/* daemon "mds" or "osd"; release "pacific", "quincy" or "reef" (RS_EINPUT
 * naming the known ones otherwise). */
int rs_observe_new(rs_observe **r_ob, const char *daemon, const char *release, rs_err *err);
void rs_observe_free(rs_observe *ob);
/* Add one file (its name says T and WHAT) or every file of a folder
 * (files whose name starts with '.' are skipped; any other that does not
 * follow the convention is an error naming it).  RS_EINPUT names FILE and,
 * for a missing or mistyped field, its JSON path. */
int rs_observe_add(rs_observe *ob, const char *path, rs_err *err);
/* The samples, in time order, t_ns from the first capture, plus the run
 * metrics (rs_result_metrics with steady_from) and the observation's own:
 * caps_steady/_peak, sessions_steady/_peak, caps_per_session_steady (from
 * session_ls), mp_<pool>_steady/_peak (dump_mempools, pools never non-zero
 * left out), vmhwm_peak_bytes.  Every sample needs an RSS (proc_status,
 * ps_rss or perf_dump's mds_mem.rss, in this order of preference) and the
 * accounted bytes (dump_mempools, or cache_status for the MDS); RS_EINPUT
 * names the capture time otherwise.  *r_limit is the limit the captures
 * name (config_get; 0: none), *r_t0 the first capture's Unix time (s). */
int rs_observe_result(rs_observe *ob, double steady_from, rs_result *res, uint64_t *r_limit,
                      double *r_t0, rs_err *err);
/* How many files were read, and from how many capture times. */
size_t rs_observe_files(const rs_observe *ob);

#endif
