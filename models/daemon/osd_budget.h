/*
 * osd_budget.h — the BlueStore OSD's memory outside its onode and buffer
 * caches, each allocation made through the run's allocator model: RocksDB's
 * block caches (kv, and kv_onode for the onode column family from v16),
 * its memtables, and the PG log with its dup entries.  Used by the osd
 * daemon (osd.c) when osd_memory_model = whole; see osd_budget.c for the
 * sources of every constant.  Units: bytes, ns.
 */
#ifndef RS_OSD_BUDGET_H
#define RS_OSD_BUDGET_H

#include <stdint.h>

#include "../../sim/base/config.h"
#include "../../sim/base/err.h"
#include "../../sim/base/result.h"
#include "../../sim/engine.h"
#include "../alloc/alloc.h"
#include "../cache/cache.h"

typedef struct rs_osd_budget rs_osd_budget;

/* The keys the budget reads (the osd daemon lists them in its params). */
#define RS_OSD_BUDGET_PARAMS                                                                     \
    { .key = "rocksdb_block_size", .type = RS_PT_SIZE, .def = "4K",                              \
      .doc = "whole: RocksDB block size (Ceph rocksdb_block_size, 4 KiB in every release)",     \
      .range = "[512, 1G]" },                                                                    \
    { .key = "rocksdb_cache_shard_bits", .type = RS_PT_INT, .def = "4",                          \
      .doc = "whole: block-cache shards = 2^bits (Ceph rocksdb_cache_shard_bits, 4)",            \
      .range = "[0, 12]" },                                                                      \
    { .key = "rocksdb_onode_bytes", .type = RS_PT_SIZE, .def = "1K",                             \
      .doc = "whole: an onode with its extent map as stored in RocksDB (encoded; a block of "    \
             "rocksdb_block_size holds block/this onodes)",                                      \
      .range = "[1, 1G]" },                                                                      \
    { .key = "rocksdb_kv_bytes_per_write", .type = RS_PT_SIZE, .def = "1K",                      \
      .doc = "whole: memtable bytes a write adds (onode, extent, freelist and statfs updates)",  \
      .range = "[0, 1G]" },                                                                      \
    { .key = "rocksdb_sst_keys_per_write", .type = RS_PT_DOUBLE, .def = "0",                     \
      .doc = "whole: keys a (not deferred) write leaves in the SST its memtable's flush writes "  \
             "(measured from RocksDB's table_file_creation events; 0 = flushed SSTs' index and " \
             "filter blocks not simulated)", .range = "[0, 1000]" },                             \
    { .key = "rocksdb_sst_bytes_per_write", .type = RS_PT_DOUBLE, .def = "0",                    \
      .doc = "whole: SST data bytes a (not deferred) write leaves in its flush's SST (data "      \
             "blocks = bytes / rocksdb_block_size, one index entry each)", .range = "[0, 1e9]" }, \
    { .key = "rocksdb_index_entry_bytes", .type = RS_PT_SIZE, .def = "64",                       \
      .doc = "whole: an SST index entry's bytes, one per data block (binary-search index, "      \
             "restart interval 1)", .range = "[1, 1M]" },                                        \
    { .key = "rocksdb_bloom_bits_per_key", .type = RS_PT_INT, .def = "20",                       \
      .doc = "whole: full Bloom filter bits per SST key (Ceph rocksdb_bloom_bits_per_key, 20)",  \
      .range = "[0, 1000]" },                                                                    \
    { .key = "bluestore_prefer_deferred_size", .type = RS_PT_SIZE, .def = "0",                   \
      .doc = "whole: writes smaller than this are deferred, their data through the WAL and a "  \
             "memtable (v16 _ssd 0, _hdd 64K)" },                                                \
    { .key = "rocksdb_deferred_cf", .type = RS_PT_BOOL, .def = "true",                           \
      .doc = "whole: a deferred write's data goes to a column family of its own (v16+ "          \
             "bluestore_rocksdb_cfs 'L', the deferred prefix); false: to the object's family" },  \
    { .key = "rocksdb_write_cfs", .type = RS_PT_INT, .def = "1",                                 \
      .doc = "whole: column families the writes spread over, each with its own memtables "       \
             "(v16 bluestore_rocksdb_cfs: O(3,...) puts onodes in 3)",                           \
      .range = "[1, 64]" },                                                                      \
    { .key = "max_total_wal_size", .type = RS_PT_SIZE, .def = "0",                               \
      .doc = "whole: WAL bytes alive (not yet flushed from every family) that flush the "       \
             "families holding the oldest WAL (v16+ bluestore_rocksdb_options 1 GiB; 0 = none)" }, \
    { .key = "min_write_buffer_number_to_merge", .type = RS_PT_INT, .def = "1",                  \
      .doc = "whole: immutable memtables a family waits for before one flush (<= v17 1; "       \
             "Reef/Squid options of PR 51821: 6)", .range = "[1, 4096]" },                       \
    { .key = "osd_min_pg_log_entries", .type = RS_PT_INT, .def = "250",                          \
      .doc = "whole: PG log length floor per PG (v15+ 250)", .range = "[0, 100000000]" },        \
    { .key = "osd_max_pg_log_entries", .type = RS_PT_INT, .def = "10000",                        \
      .doc = "whole: PG log length cap per PG (v15+ 10000)", .range = "[1, 100000000]" },        \
    { .key = "osd_target_pg_log_entries_per_osd", .type = RS_PT_INT, .def = "300000",            \
      .doc = "whole: PG log entries the OSD aims for, split over its PGs (v15+ 300000; 0 = "     \
             "every PG at osd_max_pg_log_entries, as v14)", .range = "[0, 1000000000]" },        \
    { .key = "osd_num_pgs", .type = RS_PT_INT, .def = "0",                                       \
      .doc = "whole: PGs the OSD holds, all pools (OSD::get_num_pgs: the per-PG log length is "  \
             "osd_target_pg_log_entries_per_osd / this); 0 = osd_pg_num, the PGs the trace "     \
             "writes, which alone fill their logs and dups", .range = "[0, 1000000]" },          \
    { .key = "osd_pg_log_dups_tracked", .type = RS_PT_INT, .def = "3000",                        \
      .doc = "whole: dup entries kept per PG (3000)", .range = "[0, 100000000]" },               \
    { .key = "osd_pg_log_dups_trim_broken", .type = RS_PT_BOOL, .def = "false",                  \
      .doc = "whole: dups are never trimmed (ceph tracker 53729; fixed in 16.2.11, 17.2.4)" },   \
    { .key = "osd_pg_projected_log", .type = RS_PT_BOOL, .def = "false",                         \
      .doc = "whole: the primary's projected log (PrimaryLogPG::projected_log, trimmed to each "  \
             "op's version in log_operation) turns every write's entry into a dup at once and "  \
             "keeps osd_pg_log_dups_tracked of them per PG, beside the log's own" },             \
    { .key = "osd_pg_log_entry_bytes", .type = RS_PT_SIZE, .def = "1K",                          \
      .doc = "whole: one PG log entry's allocation (osd_pglog mempool per entry, measured "      \
             "16.2.15)", .range = "[1, 1M]" },                                                   \
    { .key = "osd_pg_log_dup_bytes", .type = RS_PT_SIZE, .def = "112",                           \
      .doc = "whole: one dup entry's allocation (pg_log_dup_t + list node)",                     \
      .range = "[1, 1M]" },                                                                      \
    { .key = "osd_write_data_held", .type = RS_PT_BOOL, .def = "false",                          \
      .doc = "whole: a client write's data is one allocation of its size, held from the op's "   \
             "start until it completes (the MOSDOp's data, mempool buffer_anon)" }

/* The params above as a table, for the daemon's check that none is set in vain. */
extern const rs_param rs_osd_budget_params[];

/* Build it: block caches from kv_ops (two instances when kv_onode is set:
 * the onode column family has its own cache), pg_count PGs, flushes at
 * flush_bytes_per_s, write_buffer_bytes × max_buffers memtables per family.
 * alloc_thread is the thread a flush frees on. */
int rs_osd_budget_create(const rs_config *cfg, rs_engine *eng, rs_alloc *alloc,
                         const rs_cache_ops *kv_ops, int kv_onode, uint32_t pg_count,
                         uint64_t write_buffer_bytes, uint32_t max_buffers,
                         uint64_t flush_bytes_per_s, uint32_t flush_thread,
                         rs_osd_budget **r_budget, rs_err *err);
void rs_osd_budget_destroy(rs_osd_budget *b);
/* An onode miss read object's onode from RocksDB, on thread. */
int rs_osd_budget_onode_read(rs_osd_budget *b, uint64_t object, uint32_t thread, rs_err *err);
/* A write of data_bytes to object in PG pg, on thread: memtable and PG log. */
int rs_osd_budget_write(rs_osd_budget *b, uint64_t object, uint32_t pg, uint64_t data_bytes,
                        uint32_t thread, rs_err *err);
/* PriorityCache's commitments: the block caches' capacities (per shard
 * the 2^bits-th part), evicting now on thread. */
void rs_osd_budget_set_capacity(rs_osd_budget *b, uint64_t kv_bytes, uint64_t kv_onode_bytes,
                                uint32_t thread);
/* A full Bloom filter block's bytes for keys keys (RocksDB 6.8.1 legacy Bloom). */
uint64_t rs_osd_budget_bloom_bytes(uint64_t keys, uint64_t bits_per_key);
/* Block-cache bytes charged now. */
void rs_osd_budget_kv_usage(const rs_osd_budget *b, uint64_t *r_kv, uint64_t *r_kv_onode);
/* A client write's data arrives (osd_write_data_held): its allocation, on
 * thread; *r_token is 0 when the data is not held, else what
 * rs_osd_budget_write_done takes back when the op completes. */
int rs_osd_budget_write_data(rs_osd_budget *b, uint64_t data_bytes, uint32_t thread,
                             uint64_t *r_token, rs_err *err);
void rs_osd_budget_write_done(rs_osd_budget *b, uint64_t token, uint32_t thread);
/* Bytes held now: block caches, memtables, PG log entries and dups, the
 * client writes' data in flight. */
uint64_t rs_osd_budget_bytes(const rs_osd_budget *b);
/* kv_*, memtable_*, pg_log_* metrics. */
int rs_osd_budget_metrics(const rs_osd_budget *b, rs_result *res, rs_err *err);

#endif
