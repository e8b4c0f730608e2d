-- plot_read-fixture.sql — runs made to catch the plots a user could not read
-- without help (tests/cli/plot_read.sh), loaded with the sqlite3 shell into
-- a file made by `rssim runs init`.  Exact values:
--
--   sweep 1: varies alloc only (glibc jemalloc tcmalloc) at one 12 GiB
--            limit: the key must be the x axis, as labelled categories
--   sweep 2: varies kv_cache_limit only (16G 32G 64G): GiB on the axis, and
--            the lone series named for what it is; the 64G cache peaks at
--            40 GiB (never filled: its rss/limit is no overshoot)
--   sweep 3: varies bluestore_cache_trim_interval only (50ms 200ms): the lone
--            series of plot interval named for what it is
--   sweep 4: varies a number (threads=1,2,4) at one limit: the key on x as
--            numbers
--   plan 1:  sweep 2's limits evaluated for one daemon on a 96 GiB node
--   run 7:   a lone 24 GiB run, base_bytes 0 (resident = rss at every sample),
--            100 samples 1 s apart
--   run 8:   an osd-like run whose latency quantiles span less than a decade
--            (200 us to 900 us): the log axis must still number 3 ticks
--   runs 9 and 10: a predicted run (resident from 100 MiB to 300 MiB over
--            20 s) and the measured run of `rssim validate` for it
--            (predicted_run_id 9) that goes on 10 s longer and whose
--            resident drops to 1 KiB above its start at t = 5 s (a
--            near-zero measured value)
PRAGMA foreign_keys = ON;
BEGIN;

INSERT INTO sweeps(id, spec_hash, created_at, trace_path, trace_sha256, preset, spec,
                   varied_keys, points, jobs, status)
VALUES (1, 'read-1', '2024-01-01T00:00:00.000Z', 'traces/t.bin', 'ab', 'kv-small',
        '--vary alloc=glibc,jemalloc,tcmalloc --set kv_cache_limit=12G', 'alloc', 3, 1, 'done'),
       (2, 'read-2', '2024-01-01T00:00:00.000Z', 'traces/t.bin', 'ab', 'kv-small',
        '--vary kv_cache_limit=16G,32G,64G', 'kv_cache_limit', 3, 1, 'done');

CREATE TEMP TABLE pts(id INTEGER, sweep INTEGER, pt INTEGER, key TEXT, value TEXT,
                      limit_gib INTEGER, ov REAL, x REAL);
INSERT INTO pts VALUES (1, 1, 0, 'alloc', 'glibc', 12, 1.62, 0.30),
                       (2, 1, 1, 'alloc', 'jemalloc', 12, 1.48, 0.28),
                       (3, 1, 2, 'alloc', 'tcmalloc', 12, 1.55, 0.29),
                       (4, 2, 0, 'kv_cache_limit', '16G', 16, 1.50, 0.30),
                       (5, 2, 1, 'kv_cache_limit', '32G', 32, 1.45, 0.28),
                       (6, 2, 2, 'kv_cache_limit', '64G', 64, 1.41, 0.27);

INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, sweep_id, point_index, label, events,
                 wall_ns)
SELECT id, 'predicted', 'done', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z',
       '2024-01-01T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'kv-small', 1,
       'feedface0000000' || id, sweep, pt, key || '=' || value, 1000, 5000000
FROM pts;
INSERT INTO params(run_id, key, value)
SELECT id, key, value FROM pts
UNION ALL SELECT id, 'kv_cache_limit', '12G' FROM pts WHERE sweep = 1
UNION ALL SELECT id, 'alloc', 'jemalloc' FROM pts WHERE sweep = 2;
INSERT INTO metrics(run_id, name, value)
SELECT id, 'limit_bytes', limit_gib * 1073741824.0 FROM pts
UNION ALL SELECT id, 'overshoot_steady', ov FROM pts
UNION ALL SELECT id, 'overshoot_p99', ov + 0.05 FROM pts
UNION ALL SELECT id, 'overshoot_max', ov + 0.10 FROM pts
UNION ALL SELECT id, 'x_steady', x FROM pts
UNION ALL SELECT id, 'rss_steady_bytes', ov * limit_gib * 1073741824.0 FROM pts
UNION ALL SELECT id, 'accounted_peak_bytes',
          CASE WHEN limit_gib = 64 THEN 40 * 1073741824.0 ELSE 1.02 * limit_gib * 1073741824.0 END
          FROM pts;

-- run 7: 16 GiB limit, accounted at the limit, rss = resident 24 GiB
INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, label, events, wall_ns)
VALUES (7, 'predicted', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'mds', 7,
        'feedface00000007', 'big', 100000, 90000000);
WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 99)
INSERT INTO samples(run_id, t_ns, accounted_bytes, untracked_bytes, requested_bytes,
                    allocated_bytes, active_bytes, resident_bytes, mapped_bytes, metadata_bytes,
                    cached_bytes, dirty_bytes, base_bytes, rss_bytes, limit_bytes, items_count,
                    trims_count, trimmed_items_count, x, overshoot)
SELECT 7, n * 1000000000, MIN(n, 50) * 343597384, 0, 0, 0, 0,
       MIN(n, 50) * 515396076, 0, 0, 0, 0, 0, MIN(n, 50) * 515396076, 17179869184, n,
       0, 0, 0.33, 1.5
FROM k;

-- run 8: latency_p<q>_ns from 200 us (q = 1) to 900 us (q = 99.9)
INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, label, events, wall_ns)
VALUES (8, 'predicted', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'osd', 8,
        'feedface00000008', 'narrow latency', 1000, 9000000);
INSERT INTO metrics(run_id, name, value)
VALUES (8, 'latency_p1_ns', 200000), (8, 'latency_p50_ns', 350000),
       (8, 'latency_p90_ns', 600000), (8, 'latency_p99_ns', 800000),
       (8, 'latency_p99.9_ns', 900000);

-- sweeps 3 and 4
INSERT INTO sweeps(id, spec_hash, created_at, trace_path, trace_sha256, preset, spec,
                   varied_keys, points, jobs, status)
VALUES (3, 'read-3', '2024-01-01T00:00:00.000Z', 'traces/f.bin', 'ef', 'osd',
        '--vary bluestore_cache_trim_interval=50ms,200ms', 'bluestore_cache_trim_interval', 2, 1,
        'done'),
       (4, 'read-4', '2024-01-01T00:00:00.000Z', 'traces/t.bin', 'ab', 'kv-small',
        '--vary threads=1,2,4', 'threads', 3, 1, 'done');
CREATE TEMP TABLE more(id INTEGER, sweep INTEGER, pt INTEGER, key TEXT, value TEXT, ov REAL);
INSERT INTO more VALUES (11, 3, 0, 'bluestore_cache_trim_interval', '50ms', 1.20),
                        (12, 3, 1, 'bluestore_cache_trim_interval', '200ms', 1.35),
                        (13, 4, 0, 'threads', '1', 1.50), (14, 4, 1, 'threads', '2', 1.55),
                        (15, 4, 2, 'threads', '4', 1.65);
INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, sweep_id, point_index, label, events,
                 wall_ns)
SELECT id, 'predicted', 'done', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z',
       '2024-01-01T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'kv-small', 1,
       'feedface000000' || id, sweep, pt, key || '=' || value, 1000, 5000000
FROM more;
INSERT INTO params(run_id, key, value) SELECT id, key, value FROM more;
INSERT INTO metrics(run_id, name, value)
SELECT id, 'limit_bytes', 1073741824.0 FROM more
UNION ALL SELECT id, 'overshoot_steady', ov FROM more
UNION ALL SELECT id, 'overshoot_max', ov + 0.1 FROM more
UNION ALL SELECT id, 'x_steady', 0.3 FROM more
UNION ALL SELECT id, 'accounted_peak_bytes', 1.05 * 1073741824.0 FROM more
UNION ALL SELECT id, 'excess_peak_bytes', 0.05 * 1073741824.0 FROM more
UNION ALL SELECT id, 'iops', 20000 - 1000 * pt FROM more WHERE sweep = 3;

-- plan 1: the limits of sweep 2 evaluated for one daemon on a 96 GiB node
UPDATE runs SET seed = 1 WHERE id IN (4, 5, 6);
INSERT INTO metrics(run_id, name, value)
SELECT id, 'overshoot_p50', ov FROM pts WHERE sweep = 2
UNION ALL SELECT id, 'rss_peak_bytes', (ov + 0.10) * limit_gib * 1073741824.0 FROM pts WHERE sweep = 2;
INSERT INTO plans(id, created_at, status, preset, workload, limit_key, ram_bytes, daemons,
                  headroom, quantile, seeds, tol_rel, rule_factor, outcome, limit_bytes, verdict)
VALUES (1, '2024-01-01T00:00:00.000Z', 'done', 'kv-small', 'traces/t.bin', 'kv_cache_limit',
        103079215104, 1, 0.1, 'p99', 1, 0.02, 1.5, 'found', 34359738368, 'safe');
INSERT INTO plan_evals(plan_id, run_id, seed, limit_bytes, reused)
SELECT 1, id, 1, limit_gib * 1073741824, 0 FROM pts WHERE sweep = 2;

-- runs 9 (predicted) and 10 (measured by rssim validate)
INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, label, events, wall_ns)
VALUES (9, 'predicted', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/a.bin', 'cd', 'alloc-replay', 1,
        'feedface00000009', 'pred', 1000, 9000000),
       (10, 'measured', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/a.bin', 'cd', 'alloc-replay', 1,
        'feedface00000010', 'meas', 1000, 9000000);
-- predicted: resident 100 + 10 n MiB at t = n s, n = 0..20
WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 20)
INSERT INTO samples(run_id, t_ns, accounted_bytes, untracked_bytes, requested_bytes,
                    allocated_bytes, active_bytes, resident_bytes, mapped_bytes, metadata_bytes,
                    cached_bytes, dirty_bytes, base_bytes, rss_bytes, limit_bytes, items_count,
                    trims_count, trimmed_items_count, x, overshoot)
SELECT 9, n * 1000000000, 0, 0, 0, (90 + 10 * n) * 1048576, 0, (100 + 10 * n) * 1048576,
       0, 0, 0, 0, 0, (100 + 10 * n) * 1048576, 0, 0, 0, 0, 0, 0
FROM k;
-- measured: resident 50 + 11 n MiB at t = n s, n = 0..30, except 50 MiB +
-- 1 KiB at n = 5 (near its start: relative to it, near zero)
WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 30)
INSERT INTO samples(run_id, t_ns, accounted_bytes, untracked_bytes, requested_bytes,
                    allocated_bytes, active_bytes, resident_bytes, mapped_bytes, metadata_bytes,
                    cached_bytes, dirty_bytes, base_bytes, rss_bytes, limit_bytes, items_count,
                    trims_count, trimmed_items_count, x, overshoot)
SELECT 10, n * 1000000000, 0, 0, 0, (45 + 11 * n) * 1048576, 0,
       CASE WHEN n = 5 THEN 50 * 1048576 + 1024 ELSE (50 + 11 * n) * 1048576 END,
       0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
FROM k;
INSERT INTO metrics(run_id, name, value)
VALUES (10, 'predicted_run_id', 9);

COMMIT;
