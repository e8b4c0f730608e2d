-- store-v5.sql — a database of schema version 5 as the rssim before
-- version 6 made it (`rssim runs init`, then a few rows of every table that
-- references runs: a sweep's two runs, a measured run, params, samples,
-- metrics, a plan's evaluation, a node's member, a claim), dumped with
-- `sqlite3 DB .dump`.  tests/cli/store_migrate.sh loads it into a new file
-- and lets rssim migrate it to version 6.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE meta( key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES('schema_version','5');
CREATE TABLE sweeps( id INTEGER PRIMARY KEY, spec_hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, trace_path TEXT, trace_sha256 TEXT, preset TEXT, spec TEXT, varied_keys TEXT, points INTEGER, jobs INTEGER, status TEXT NOT NULL DEFAULT 'pending');
INSERT INTO sweeps VALUES(1,'v5-sweep','2026-01-01T00:00:00.000Z',NULL,NULL,'kv-small','--vary kv_cache_limit=1M,2M','kv_cache_limit',2,1,'done');
CREATE TABLE runs( id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK (kind IN ('predicted','measured')), status TEXT NOT NULL CHECK (status IN ('pending','running','done','failed')), created_at TEXT NOT NULL, started_at TEXT, finished_at TEXT, version TEXT NOT NULL, trace_path TEXT, trace_sha256 TEXT, preset TEXT, seed INTEGER NOT NULL, param_hash TEXT, sweep_id INTEGER REFERENCES sweeps(id), point_index INTEGER, label TEXT, events INTEGER, wall_ns INTEGER, error TEXT);
INSERT INTO runs VALUES(3,'predicted','done','2026-01-01T00:00:01.000Z',NULL,NULL,'0.1.0','t.tsv','aa','kv-small',1,'0123456789abcdef',1,0,'kv_cache_limit=1M',100,5000,NULL);
INSERT INTO runs VALUES(5,'predicted','done','2026-01-01T00:00:02.000Z',NULL,NULL,'0.1.0','t.tsv','aa','kv-small',1,'0123456789abcdee',1,1,'kv_cache_limit=2M',100,5000,NULL);
INSERT INTO runs VALUES(9,'measured','done','2026-01-01T00:00:03.000Z',NULL,NULL,'0.1.0','t.tsv','aa','pacific-mds',0,'fedcba9876543210',NULL,NULL,'ceph-measure mds',100,2000000000,NULL);
CREATE TABLE claims( run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE, owner TEXT NOT NULL);
INSERT INTO claims VALUES(5,'host:1:2');
CREATE TABLE params( run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (run_id, key)) WITHOUT ROWID;
INSERT INTO params VALUES(3,'kv_cache_limit','1M');
INSERT INTO params VALUES(5,'kv_cache_limit','2M');
INSERT INTO params VALUES(9,'daemon','mds');
CREATE TABLE samples( run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t_ns INTEGER NOT NULL DEFAULT 0, accounted_bytes INTEGER NOT NULL DEFAULT 0, untracked_bytes INTEGER NOT NULL DEFAULT 0, requested_bytes INTEGER NOT NULL DEFAULT 0, allocated_bytes INTEGER NOT NULL DEFAULT 0, active_bytes INTEGER NOT NULL DEFAULT 0, resident_bytes INTEGER NOT NULL DEFAULT 0, mapped_bytes INTEGER NOT NULL DEFAULT 0, metadata_bytes INTEGER NOT NULL DEFAULT 0, cached_bytes INTEGER NOT NULL DEFAULT 0, dirty_bytes INTEGER NOT NULL DEFAULT 0, base_bytes INTEGER NOT NULL DEFAULT 0, rss_bytes INTEGER NOT NULL DEFAULT 0, limit_bytes INTEGER NOT NULL DEFAULT 0, items_count INTEGER NOT NULL DEFAULT 0, trims_count INTEGER NOT NULL DEFAULT 0, trimmed_items_count INTEGER NOT NULL DEFAULT 0, thread_cached_bytes INTEGER NOT NULL DEFAULT 0, heap_bytes INTEGER NOT NULL DEFAULT 0, unmapped_bytes INTEGER NOT NULL DEFAULT 0, central_cached_bytes INTEGER NOT NULL DEFAULT 0, transfer_cached_bytes INTEGER NOT NULL DEFAULT 0, pageheap_free_bytes INTEGER NOT NULL DEFAULT 0, x REAL, overshoot REAL, PRIMARY KEY (run_id, t_ns)) WITHOUT ROWID;
INSERT INTO samples VALUES(3,0,100,0,0,0,0,0,0,0,0,0,0,200,1048576,0,0,0,0,0,0,0,0,0,0.5,0.00020000000000000000958);
INSERT INTO samples VALUES(3,1000,150,0,0,0,0,0,0,0,0,0,0,300,1048576,0,0,0,0,0,0,0,0,0,0.5,0.00029999999999999997371);
INSERT INTO samples VALUES(5,0,100,0,0,0,0,0,0,0,0,0,0,210,2097152,0,0,0,0,0,0,0,0,0,0.52000000000000001776,0.00010000000000000000479);
INSERT INTO samples VALUES(9,0,1000000,0,0,0,0,0,0,0,0,0,0,40000000,0,0,0,0,0,0,0,0,0,0,0.97499999999999997779,0.0);
INSERT INTO samples VALUES(9,1000000000,2000000,0,0,0,0,0,0,0,0,0,0,41000000,0,0,0,0,0,0,0,0,0,0,0.94999999999999995559,0.0);
CREATE TABLE metrics( run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, name TEXT NOT NULL, value REAL, PRIMARY KEY (run_id, name)) WITHOUT ROWID;
INSERT INTO metrics VALUES(3,'rss_peak_bytes',300.0);
INSERT INTO metrics VALUES(5,'rss_peak_bytes',210.0);
INSERT INTO metrics VALUES(9,'rss_peak_bytes',41000000.0);
INSERT INTO metrics VALUES(9,'x_steady',NULL);
CREATE TABLE plans( id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('running','done','failed')), preset TEXT, workload TEXT, limit_key TEXT, ram_bytes INTEGER, daemons INTEGER, headroom REAL, quantile TEXT, seeds INTEGER, tol_rel REAL, rule_factor REAL, outcome TEXT, limit_bytes INTEGER, verdict TEXT);
INSERT INTO plans VALUES(1,'2026-01-01T00:00:04.000Z','done','kv-small','t.tsv','kv_cache_limit',1073741824,2,0.10000000000000000555,'peak',1,0.010000000000000000208,NULL,'found',2097152,'limit 2M');
CREATE TABLE plan_evals( plan_id INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE, run_id INTEGER NOT NULL REFERENCES runs(id), seed INTEGER NOT NULL, limit_bytes INTEGER NOT NULL, reused INTEGER NOT NULL, PRIMARY KEY (plan_id, run_id)) WITHOUT ROWID;
INSERT INTO plan_evals VALUES(1,5,1,2097152,0);
CREATE TABLE nodes( id INTEGER PRIMARY KEY, created_at TEXT NOT NULL, spec TEXT NOT NULL, ram_bytes INTEGER, headroom REAL, interval_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, steady_from_ns INTEGER NOT NULL, verdict TEXT);
INSERT INTO nodes VALUES(1,'2026-01-01T00:00:05.000Z','--member t.tsv:kv-small',NULL,NULL,1000,1000,500,NULL);
CREATE TABLE node_members( node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE, member INTEGER NOT NULL, copy INTEGER NOT NULL, run_id INTEGER NOT NULL REFERENCES runs(id), offset_ns INTEGER NOT NULL, reused INTEGER NOT NULL, PRIMARY KEY (node_id, member, copy)) WITHOUT ROWID;
INSERT INTO node_members VALUES(1,0,0,3,0,1);
CREATE TABLE node_samples( node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE, t_ns INTEGER NOT NULL, rss_bytes INTEGER NOT NULL, accounted_bytes INTEGER NOT NULL, resident_bytes INTEGER NOT NULL, base_bytes INTEGER NOT NULL, PRIMARY KEY (node_id, t_ns)) WITHOUT ROWID;
INSERT INTO node_samples VALUES(1,0,200,100,150,50);
CREATE TABLE node_metrics( node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE, name TEXT NOT NULL, value REAL, PRIMARY KEY (node_id, name)) WITHOUT ROWID;
INSERT INTO node_metrics VALUES(1,'rss_peak_bytes',300.0);
CREATE UNIQUE INDEX runs_sweep_point ON runs(sweep_id, point_index) WHERE sweep_id IS NOT NULL;
CREATE INDEX runs_status ON runs(status);
COMMIT;
