-- plot_osd-fixture.sql — a small database for tests/cli/plot_osd.sh (the
-- osd plots), loaded with the sqlite3 shell into a file made by
-- `rssim runs init`, so the schema is the real one.  Exact values:
--
--   sweep 1: bluestore_cache_trim_interval (25ms 50ms 100ms 200ms) x
--            bluestore_cache_size (1G 2G), points in --vary order; all done;
--            overshoot_max = 1.1 + (0.002 | 0.001) x interval_ms,
--            iops = 20000 x ms / (ms + 10) (1G) and 25000 x ms / (ms + 10) (2G),
--            latency_p<q>_ns = 100000 x (1 + q^2 / 400) x (1 + 50 / ms)
--   run 9:   a lone done run, alloc=jemalloc, no label, latency base 200 us
--            (latency_p<q>_ns = 200000 x (1 + q^2 / 400))
--   run 10:  a lone done run, alloc=tcmalloc, no label, a 30 ms tail
--            (latency_p<q>_ns = 1000000 x (1 + q^2 / 345))
--   run 11:  a lone done kv run: no latency or iops metrics
--   sweep 2: trim_interval (50ms 200ms) of kv runs 12, 13: no iops
PRAGMA foreign_keys = ON;
BEGIN;

INSERT INTO sweeps(id, spec_hash, created_at, trace_path, trace_sha256, preset, spec,
                   varied_keys, points, jobs, status)
VALUES (1, 'osd-fixture-1', '2024-01-01T00:00:00.000Z', 'traces/fio.bin', 'ab', 'osd-luminous',
        '--vary bluestore_cache_trim_interval=25ms,50ms,100ms,200ms --vary bluestore_cache_size=1G,2G',
        'bluestore_cache_trim_interval,bluestore_cache_size', 8, 2, 'done'),
       (2, 'osd-fixture-2', '2024-01-01T00:00:00.000Z', 'traces/t.bin', 'ab', 'kv-small',
        '--vary trim_interval=50ms,200ms', 'trim_interval', 2, 1, 'done');

CREATE TEMP TABLE grid(point INTEGER, ms REAL, iv TEXT, cache TEXT, slope REAL, peak REAL);
INSERT INTO grid VALUES (0, 25, '25ms', '1G', 0.002, 20000), (1, 25, '25ms', '2G', 0.001, 25000),
                        (2, 50, '50ms', '1G', 0.002, 20000), (3, 50, '50ms', '2G', 0.001, 25000),
                        (4, 100, '100ms', '1G', 0.002, 20000), (5, 100, '100ms', '2G', 0.001, 25000),
                        (6, 200, '200ms', '1G', 0.002, 20000), (7, 200, '200ms', '2G', 0.001, 25000);
CREATE TEMP TABLE qs(q REAL, name TEXT);
INSERT INTO qs VALUES (0.1, 'latency_p0.1_ns'), (1, 'latency_p1_ns'), (5, 'latency_p5_ns'),
    (10, 'latency_p10_ns'), (20, 'latency_p20_ns'), (30, 'latency_p30_ns'),
    (40, 'latency_p40_ns'), (50, 'latency_p50_ns'), (60, 'latency_p60_ns'),
    (70, 'latency_p70_ns'), (80, 'latency_p80_ns'), (90, 'latency_p90_ns'),
    (95, 'latency_p95_ns'), (99, 'latency_p99_ns'), (99.5, 'latency_p99.5_ns'),
    (99.9, 'latency_p99.9_ns'), (99.99, 'latency_p99.99_ns');

INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, sweep_id, point_index, label, events,
                 wall_ns)
SELECT point + 1, 'predicted', 'done', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:01.000Z',
       '2024-01-01T00:00:02.000Z', '0.1.0', 'traces/fio.bin', 'ab', 'osd-luminous', 1,
       'feedface00000000', 1, point,
       'bluestore_cache_trim_interval=' || iv || ' bluestore_cache_size=' || cache, 1000, 5000000
FROM grid;
INSERT INTO params(run_id, key, value)
SELECT point + 1, 'bluestore_cache_trim_interval', iv FROM grid
UNION ALL SELECT point + 1, 'bluestore_cache_size', cache FROM grid
UNION ALL SELECT point + 1, 'alloc', 'tcmalloc' FROM grid;
INSERT INTO metrics(run_id, name, value)
SELECT point + 1, 'overshoot_max', 1.1 + slope * ms FROM grid
UNION ALL SELECT point + 1, 'excess_peak_bytes', slope * ms * 1073741824 FROM grid
UNION ALL SELECT point + 1, 'iops', peak * ms / (ms + 10) FROM grid
UNION ALL SELECT point + 1, 'limit_bytes', 1073741824 FROM grid
UNION ALL SELECT point + 1, qs.name, 100000 * (1 + qs.q * qs.q / 400) * (1 + 50 / grid.ms)
          FROM grid, qs;

INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, label, events, wall_ns)
VALUES (9, 'predicted', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/fio.bin', 'ab', 'osd-luminous', 7,
        'feedface00000009', NULL, 1000, 5000000),
       (10, 'predicted', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/fio.bin', 'ab', 'osd-luminous', 7,
        'feedface0000000a', '', 1000, 5000000),
       (11, 'predicted', 'done', '2024-01-02T00:00:00.000Z', '2024-01-02T00:00:01.000Z',
        '2024-01-02T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'kv-small', 7,
        'feedface0000000b', 'a kv run', 1000, 5000000);
INSERT INTO params(run_id, key, value)
VALUES (9, 'alloc', 'jemalloc'), (9, 'bluestore_cache_size', '1G'),
       (10, 'alloc', 'tcmalloc'), (10, 'bluestore_cache_size', '1G'),
       (11, 'alloc', 'tcmalloc');
INSERT INTO metrics(run_id, name, value)
SELECT 9, name, 200000 * (1 + q * q / 400) FROM qs
UNION ALL SELECT 10, name, 1000000 * (1 + q * q / 345) FROM qs
UNION ALL SELECT 11, 'overshoot_max', 1.3;

INSERT INTO runs(id, kind, status, created_at, started_at, finished_at, version, trace_path,
                 trace_sha256, preset, seed, param_hash, sweep_id, point_index, label, events,
                 wall_ns)
VALUES (12, 'predicted', 'done', '2024-01-03T00:00:00.000Z', '2024-01-03T00:00:01.000Z',
        '2024-01-03T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'kv-small', 1,
        'feedface0000000c', 2, 0, 'trim_interval=50ms', 1000, 5000000),
       (13, 'predicted', 'done', '2024-01-03T00:00:00.000Z', '2024-01-03T00:00:01.000Z',
        '2024-01-03T00:00:02.000Z', '0.1.0', 'traces/t.bin', 'ab', 'kv-small', 1,
        'feedface0000000d', 2, 1, 'trim_interval=200ms', 1000, 5000000);
INSERT INTO params(run_id, key, value)
VALUES (12, 'trim_interval', '50ms'), (13, 'trim_interval', '200ms');
INSERT INTO metrics(run_id, name, value)
VALUES (12, 'overshoot_max', 1.2), (13, 'overshoot_max', 1.4);

COMMIT;
