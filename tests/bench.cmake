# bench.cmake — bench_alloc: throughput and footprint of any allocator model
# by name (`bench_alloc jemalloc`, `bench_alloc tcmalloc footprint`).  A
# program, not a ctest: timings do not belong in pass/fail tests.
add_executable(bench_alloc ${CMAKE_SOURCE_DIR}/tests/bench_alloc.c)
target_link_libraries(bench_alloc PRIVATE rssim)
# bench_store: a store of 10^4 runs x 10^3 samples (scripts/bench-store).
add_executable(bench_store ${CMAKE_SOURCE_DIR}/tests/bench_store.c)
target_link_libraries(bench_store PRIVATE rssim)
# bench_lru_floor: the bare exact-LRU floor scripts/bench measures against.
add_executable(bench_lru_floor ${CMAKE_SOURCE_DIR}/tests/bench_lru_floor.c)
target_link_libraries(bench_lru_floor PRIVATE rssim)
# bench_trace_read: reading a trace alone, read(2) against a mapping.
add_executable(bench_trace_read ${CMAKE_SOURCE_DIR}/tests/bench_trace_read.c)
target_link_libraries(bench_trace_read PRIVATE rssim)
