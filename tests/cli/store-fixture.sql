-- store-fixture.sql — a small database for the runs and plot CLI tests,
-- loaded with the sqlite3 shell into a file made by `rssim runs init`
-- (so the schema is the real one: a column renamed there breaks this file,
-- and the tests say so).  Exact values, so the tests can check output.
--
--   sweep 1: varies kv_cache_limit (16M 64M 256M 1G) x trim_interval
--            (50ms 200ms); points 0..6 done with metrics and 3 samples
--            each, point 7 failed
--   run 9:   a lone done run with 600 samples (a sawtooth) and metrics
--   run 10:  a lone run still running
--   sweep 2: one pending run (nothing done)
PRAGMA foreign_keys = ON;
BEGIN;

INSERT INTO sweeps(id, spec_hash, created_at, trace_path, trace_sha256, preset, spec,
                   varied_keys, points, jobs, status)
VALUES (1, 'fixture-1', '2024-01-01T00:00:00.000Z', 'traces/t.bin', 'ab', 'kv-small',
        '--vary kv_cache_limit=16M,64M,256M,1G --vary trim_interval=50ms,200ms',
        'kv_cache_limit,trim_interval', 8, 2, 'done'),
       (2, 'fixture-2', '2024-01-01T00:00:00.000Z', 'traces/t.bin', 'ab', 'kv-small',
        '--vary kv_cache_limit=1M,2M', 'kv_cache_limit', 2, 1, 'pending');

-- the grid: point = 2 * limit index + interval index
CREATE TEMP TABLE grid(point INTEGER, li INTEGER, limit_mib INTEGER, lim TEXT, ii INTEGER,
                       interval TEXT);
INSERT INTO grid VALUES (0, 0, 16, '16M', 0, '50ms'), (1, 0, 16, '16M', 1, '200ms'),
                        (2, 1, 64, '64M', 0, '50ms'), (3, 1, 64, '64M', 1, '200ms'),
                        (4, 2, 256, '256M', 0, '50ms'), (5, 2, 256, '256M', 1, '200ms'),
                        (6, 3, 1024, '1G', 0, '50ms'), (7, 3, 1024, '1G', 1, '200ms');

INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, sweep_id, point_index, label, events,
                 wall_ns, error)
SELECT point + 1, 'predicted', CASE WHEN point = 7 THEN 'failed' ELSE 'done' END,
       '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z', '2024-01-01T00:00:02.000Z',
       '0.1.0', 'traces/t.bin', 'ab', 'kv-small', 1, 'feedface00000000', 1, point,
       'kv_cache_limit=' || lim || ' trim_interval=' || interval, 1000, 5000000,
       CASE WHEN point = 7 THEN 'injected failure' END
FROM grid;

INSERT INTO params(run_id, key, value)
SELECT point + 1, 'kv_cache_limit', lim FROM grid
UNION ALL SELECT point + 1, 'trim_interval', interval FROM grid
UNION ALL SELECT point + 1, 'alloc', 'jemalloc' FROM grid;

-- x falls with the limit; the longer interval adds trim lag on top of (1-x)^-1
INSERT INTO metrics(run_id, name, value)
SELECT point + 1, 'limit_bytes', limit_mib * 1048576.0 FROM grid WHERE point < 7
UNION ALL SELECT point + 1, 'x_steady', 0.40 - 0.05 * li FROM grid WHERE point < 7
UNION ALL SELECT point + 1, 'overshoot_steady', 1.0 / (0.60 + 0.05 * li) + 0.05 + 0.20 * ii
          FROM grid WHERE point < 7
UNION ALL SELECT point + 1, 'overshoot_p99', 1.0 / (0.60 + 0.05 * li) + 0.10 + 0.20 * ii
          FROM grid WHERE point < 7
UNION ALL SELECT point + 1, 'overshoot_max', 1.0 / (0.60 + 0.05 * li) + 0.15 + 0.25 * ii
          FROM grid WHERE point < 7
UNION ALL SELECT point + 1, 'rss_steady_bytes',
          limit_mib * 1048576.0 * (1.0 / (0.60 + 0.05 * li) + 0.05 + 0.20 * ii)
          FROM grid WHERE point < 7;

WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 2)
INSERT INTO samples(run_id, t_ns, accounted_bytes, untracked_bytes, requested_bytes,
                    allocated_bytes, active_bytes, resident_bytes, mapped_bytes, metadata_bytes,
                    cached_bytes, dirty_bytes, base_bytes, rss_bytes, limit_bytes, items_count,
                    trims_count, trimmed_items_count, x, overshoot)
SELECT point + 1, n * 1000000000, limit_mib * 1048576, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
       limit_mib * 2097152, limit_mib * 1048576, 10 * n, n, 0, 0.5, 2.0
FROM grid, k WHERE point < 7;

-- run 9: 60 s of samples every 100 ms; accounted saw-tooths between 56 and
-- 72 MiB around a 64 MiB limit (a trim every 2 s); resident follows with
-- allocator slack that only grows; rss adds 20 MiB of base.
INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, label, events, wall_ns)
VALUES (9, 'predicted', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'kv-small', 7,
        'feedface00000009', 'limit=64M', 600000, 90000000);
INSERT INTO params(run_id, key, value)
VALUES (9, 'kv_cache_limit', '64M'), (9, 'trim_interval', '2s'), (9, 'alloc', 'jemalloc');
WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 599),
     v(n, acc, res) AS (SELECT n, 58720256 + (n % 20) * 838861,
                               58720256 + (n % 20) * 838861 + 16777216 + n * 20000 FROM k)
INSERT INTO samples(run_id, t_ns, accounted_bytes, untracked_bytes, requested_bytes,
                    allocated_bytes, active_bytes, resident_bytes, mapped_bytes, metadata_bytes,
                    cached_bytes, dirty_bytes, base_bytes, rss_bytes, limit_bytes, items_count,
                    trims_count, trimmed_items_count, x, overshoot)
SELECT 9, n * 100000000, acc, acc / 4, acc + acc / 4, acc + acc / 3, res - 4194304, res,
       res + 8388608, 2097152, 1048576, 4194304, 20971520, res + 20971520, 67108864, n * 50,
       n / 20, n * 10, 1.0 - CAST(acc AS REAL) / (res + 20971520),
       CAST(res + 20971520 AS REAL) / 67108864
FROM v;
INSERT INTO metrics(run_id, name, value)
VALUES (9, 'limit_bytes', 67108864), (9, 'rss_steady_bytes', 104857600),
       (9, 'overshoot_steady', 1.5), (9, 'x_steady', 0.36), (9, 'overshoot_max', 1.75),
       (9, 'overshoot_p99', 1.7), (9, 'trims_count', 29);

INSERT INTO runs(id, kind, status, created_at, started_at, version, preset, seed, label)
VALUES (10, 'predicted', 'running', '2024-01-03T00:00:00.000Z', '2024-01-03T00:00:01.000Z',
        '0.1.0', 'kv-small', 8, 'still going');

INSERT INTO runs(id, kind, status, created_at, version, preset, seed, sweep_id, point_index,
                 label)
VALUES (11, 'predicted', 'pending', '2024-01-04T00:00:00.000Z', '0.1.0', 'kv-small', 1, 2, 0,
        'kv_cache_limit=1M');

COMMIT;
