/*
 * mds_base.h — the CephFS MDS outside its cache, used by the mds daemon
 * (mds.c) through this small interface: the client sessions and the
 * journal (MDLog's segments, their expiry, the heap the unexpired ones keep
 * resident).  mds_cache_memory_limit governs only the mds_co mempool
 * (MDCache::cache_size()); none of this is in it.  The daemon tells it when
 * a client first shows up and when a record changes the namespace; it
 * allocates what it holds through the run's allocator model and reports the
 * bytes as untracked.  Sources and the constants' provenance: mds_base.c and
 * docs/models.md ("The MDS outside its cache").  Units: ns, bytes.
 */
#ifndef RS_MDS_BASE_H
#define RS_MDS_BASE_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"
#include "../../sim/base/result.h"
#include "../../sim/engine.h"
#include "../alloc/alloc.h"

typedef struct rs_mds_base rs_mds_base;

/* The keys it reads; the daemon lists them in its params.  Every default
 * leaves the model off (0), so a preset turns it on with its release's
 * values (models/presets/mds-pacific.conf and later). */
#define RS_MDS_BASE_PARAMS                                                                       \
    { .key = "mds_session_bytes", .type = RS_PT_SIZE, .def = "0",                                \
      .doc = "heap of one client session outside mds_co: Session with its session_info_t and "  \
             "client_metadata, its Connection and the messenger's buffers (estimate from "      \
             "Session.h/AsyncConnection.h, docs/models.md); 0 = none" },                        \
    { .key = "mds_log_events_per_update", .type = RS_PT_DOUBLE, .def = "0",                     \
      .doc = "journal events per record that changes the namespace (CREATE, MKDIR, UNLINK, "    \
             "RMDIR): the EUpdate and what follows it (cap update, EOpen, ESession); measured "  \
             "2.28 for libcephfs create+close on Pacific; 0 = no journal",                      \
      .range = "[0, 64]" },                                                                      \
    { .key = "mds_log_event_bytes", .type = RS_PT_SIZE, .def = "2K",                             \
      .doc = "encoded size of one journal event (the journal's write position advances by it; " \
             "measured 1.99 KB per event on Pacific)",                                          \
      .range = "[1, 16M]" },                                                                     \
    { .key = "mds_log_heap_ratio", .type = RS_PT_DOUBLE, .def = "0",                             \
      .doc = "heap bytes kept resident per byte of unexpired journal (fitted to the Pacific "    \
             "measurement, docs/validation.md; the source frees each LogEvent once encoded)",   \
      .range = "[0, 16]" },                                                                      \
    { .key = "mds_log_expire_event_bytes", .type = RS_PT_SIZE, .def = "0",                       \
      .doc = "heap the expiry of one event takes while its segment expires: the dirty dirfrags' " \
             "omap commits and backtrace writes in flight, and the heap they leave behind (fitted, " \
             "docs/models.md); 0 = none",                                                       \
      .range = "[0, 16M]" },                                                                     \
    { .key = "objecter_inflight_op_bytes", .type = RS_PT_SIZE, .def = "100M",                     \
      .doc = "the Objecter's throttle on the bytes of its ops in flight: expiry's writes wait " \
             "for it, so what expiring segments hold at once stays under it (Ceph default "    \
             "100 MiB, all releases)",                                                          \
      .range = "[0, )" },                                                                        \
    { .key = "mds_log_events_per_segment", .type = RS_PT_INT, .def = "1024",                     \
      .doc = "a new log segment after this many events (Ceph default 1024, all releases)",      \
      .range = "[1, 1048576]" },                                                                 \
    { .key = "mds_log_max_segments", .type = RS_PT_INT, .def = "128",                            \
      .doc = "MDLog::trim expires segments beyond this many (Ceph default 128 since 12.2.5)",   \
      .range = "[1, 1048576]" },                                                                 \
    { .key = "mds_log_period", .type = RS_PT_SIZE, .def = "4M",                                  \
      .doc = "the journal's object size: a segment also ends when the write position crosses " \
             "an object boundary (MDLog::_submit_entry; 4 MiB default layout)",                 \
      .range = "[4K, 1G]" },                                                                     \
    { .key = "mds_tick_interval", .type = RS_PT_DURATION, .def = "5s",                           \
      .doc = "time between two MDS ticks: MDLog::trim and the health check (MDS_CACHE_OVERSIZED) " \
             "run in MDSRankDispatcher::tick (default 5 s); Luminous also trimmed the cache "    \
             "there",                                                                            \
      .range = "(0, )" }

/* What the outside holds, for the daemon's stats and metrics. */
typedef struct rs_mds_base_stats {
    uint64_t heap_bytes;        /* requested bytes it holds through the allocator now */
    uint64_t sessions_count;
    uint64_t log_events_count;  /* unexpired (live) events */
    uint64_t log_segments_count;
    uint64_t log_bytes;         /* write position - expire position */
} rs_mds_base_stats;

int rs_mds_base_create(const rs_config *cfg, rs_alloc *alloc, rs_mds_base **r_b, rs_err *err);
void rs_mds_base_destroy(rs_mds_base *b);

/* Client `client` sends its first request: its session is opened. */
int rs_mds_base_session(rs_mds_base *b, uint32_t client, uint32_t thread, uint64_t now_ns,
                        rs_err *err);

/* A record that changes the namespace was applied: its events are journaled
 * into the current segment (a new one starts on the boundaries). */
int rs_mds_base_journal(rs_mds_base *b, uint32_t thread, uint64_t now_ns, rs_err *err);

/* MDLog::trim at a tick: drop the segments whose expiry finished (those
 * expiring since the last tick) and free their writes, then expire the
 * oldest beyond mds_log_max_segments, their writes allocated on io_thread
 * (the Objecter's and messenger's side). */
int rs_mds_base_log_trim(rs_mds_base *b, uint32_t thread, uint32_t io_thread, uint64_t now_ns,
                         rs_err *err);

void rs_mds_base_stats_get(const rs_mds_base *b, rs_mds_base_stats *r);

/* Its run metrics: mds_sessions_count, mds_log_* (peaks, expiries). */
int rs_mds_base_metrics(const rs_mds_base *b, rs_result *res, rs_err *err);

#endif
