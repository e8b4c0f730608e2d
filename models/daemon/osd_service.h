/*
 * osd_service.h — the OSD's op service (op shards, workers, PG ordering,
 * the device, clients, cache-shard locks, latency and IOPS), used by the osd
 * daemon (osd.c) through this small interface.  The service owns the op's
 * timing; the daemon owns the caches and applies each op to them when the
 * service issues it (hooks.apply), and unpins what it pinned when the op
 * completes (hooks.done).  Units: ns, bytes.
 */
#ifndef RS_OSD_SERVICE_H
#define RS_OSD_SERVICE_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"
#include "../../sim/base/result.h"
#include "../../sim/engine.h"
#include "../../traces/trace.h"

/* What applying an op to the caches gave. */
typedef struct rs_osd_applied {
    uint32_t onode;         /* token handed back to hooks.done at completion */
    uint64_t held;          /* second token handed back to hooks.done (0: none) */
    int device;             /* 1: the op needs the device (a write, a read miss) */
    uint64_t trimmed_count; /* items its trim-on-add evicted (charged to its worker) */
} rs_osd_applied;

typedef struct rs_osd_service_hooks {
    void *ctx;
    /* Apply rec to the caches now, on op shard op_shard's thread, the object
     * living in cache shard cache_shard; object_hash is rs_hash64(rec->key),
     * computed for the PG already (so the daemon need not hash it again). */
    int (*apply)(void *ctx, const rs_rec *rec, uint32_t op_shard, uint32_t cache_shard,
                 uint64_t object_hash, rs_osd_applied *r_applied, rs_err *err);
    /* The op applied with these tokens completed. */
    void (*done)(void *ctx, uint32_t onode, uint64_t held);
    /* Optional: rec will be applied soon (a closed loop's job has it next
     * but one: stage 0; next: stage 1).  A hint only, it changes nothing. */
    void (*prefetch)(void *ctx, const rs_rec *rec, int stage);
} rs_osd_service_hooks;

typedef struct rs_osd_service rs_osd_service;

/* The keys the service reads; the daemon lists them in its params. */
#define RS_OSD_SERVICE_PARAMS                                                                    \
    { .key = "osd_op_num_shards", .type = RS_PT_INT, .def = "8",                                 \
      .doc = "op shards (ssd 8, hdd 5)",                                                         \
      .range = "[1, 256]" },                                                                     \
    { .key = "osd_op_num_threads_per_shard", .type = RS_PT_INT, .def = "2",                      \
      .doc = "worker threads per op shard (ssd 2, hdd 1)",                                       \
      .range = "[1, 1024]" },                                                                    \
    { .key = "osd_pg_num", .type = RS_PT_INT, .def = "128",                                      \
      .doc = "PGs on the OSD: an object's PG picks its shards, and a PG's ops run one at a time " \
             "(the PG lock); 0 = no PG ordering",                                               \
      .range = "[0, 1048576]" },                                                                 \
    { .key = "osd_op_read_cost", .type = RS_PT_DURATION, .def = "20us",                          \
      .doc = "worker time of a read, device excluded (calibrated on PR 20498's table, docs/models.md)" }, \
    { .key = "osd_op_write_cost", .type = RS_PT_DURATION, .def = "597us",                        \
      .doc = "worker time of a write before the device (calibrated: 8K_write)" },                \
    { .key = "osd_op_read_random_cost", .type = RS_PT_DURATION, .def = "1461us",                 \
      .doc = "extra worker time of a read not continuing its job's last one (calibrated: 8K_randread)" }, \
    { .key = "osd_op_write_random_cost", .type = RS_PT_DURATION, .def = "1275us",                \
      .doc = "extra worker time of a write not continuing its job's last one (calibrated: 8K_randwrite)" }, \
    { .key = "osd_op_cost_per_mib", .type = RS_PT_DURATION, .def = "1ms",                        \
      .doc = "worker time per MiB moved (copies, checksums)" },                                  \
    { .key = "osd_device_read_rand_cost", .type = RS_PT_DURATION, .def = "40us",                 \
      .doc = "device occupancy of a random read (FIFO; calibrated)" },                          \
    { .key = "osd_device_read_seq_cost", .type = RS_PT_DURATION, .def = "30800ns",               \
      .doc = "device occupancy of a read continuing its job's last one (calibrated: 8K_read)" }, \
    { .key = "osd_device_write_cost", .type = RS_PT_DURATION, .def = "36100ns",                  \
      .doc = "device occupancy of a write (calibrated: 8K_rw, 1M_write)" },                      \
    { .key = "osd_device_read_bandwidth", .type = RS_PT_SIZE, .def = "1273M",                    \
      .doc = "device read bandwidth, bytes per second (calibrated: 1M_read, 8K_read)",           \
      .range = "(0, )" },                                                                        \
    { .key = "osd_device_write_bandwidth", .type = RS_PT_SIZE, .def = "750M",                    \
      .doc = "device write bandwidth, bytes per second (calibrated: 1M_write)",                  \
      .range = "(0, )" },                                                                        \
    { .key = "osd_client_latency", .type = RS_PT_DURATION, .def = "200us",                       \
      .doc = "client and network time of an op outside the OSD" },                               \
    { .key = "osd_trim_cost_per_item", .type = RS_PT_DURATION, .def = "300ns",                   \
      .doc = "shard-lock time per onode or buffer a trim evicts" },                              \
    { .key = "client_iodepth", .type = RS_PT_INT, .def = "0",                                    \
      .doc = "ops each client job keeps outstanding (0 = open loop: issue each record at its t_ns)", \
      .range = "[0, 65535]" }

/* Build the service for cache_shards cache shards (<= 256) from cfg's
 * RS_OSD_SERVICE_PARAMS keys.  hooks are copied. */
int rs_osd_service_create(const rs_config *cfg, rs_engine *eng, uint32_t cache_shards,
                          const rs_osd_service_hooks *hooks, rs_osd_service **r_svc, rs_err *err);
void rs_osd_service_destroy(rs_osd_service *svc);
/* A record the daemon accepted: issue it now, or queue it for its job's
 * free slot (closed loop). */
int rs_osd_service_submit(rs_osd_service *svc, const rs_rec *rec, rs_err *err);
/* The PG of the object whose rs_hash64 is object_hash (that hash when
 * osd_pg_num is 0); shards follow it.  Callers have the hash already (the
 * apply hook is handed it). */
uint64_t rs_osd_service_pg_of_hash(const rs_osd_service *svc, uint64_t object_hash);
/* A background trim holds cache shard's lock from start_ns for fixed_ns +
 * osd_trim_cost_per_item × items; returns the time held. */
uint64_t rs_osd_service_hold(rs_osd_service *svc, uint32_t cache_shard, uint64_t start_ns,
                             uint64_t fixed_ns, uint64_t items);
/* Ops issued and not complete. */
uint64_t rs_osd_service_inflight(const rs_osd_service *svc);
/* Whether its clients pace the records (client_iodepth > 0, a closed loop). */
int rs_osd_service_paced(const rs_osd_service *svc);
/* iops, iops_whole_run, bandwidth_bytes_per_s, ops_count, latency_mean_ns,
 * latency_p<q>_ns, trim_lock_ns. */
int rs_osd_service_metrics(const rs_osd_service *svc, rs_result *res, rs_err *err);

#endif
