# glibc.cmake — extra wiring for the glibc model's tests (included at the end
# of CMakeLists.txt).
#
# test_glibc_real (created by the tests/test_*.c glob) compares the model with
# this machine's glibc malloc in a re-executed child; it needs no extra
# library, but exits 77 (skipped) in sanitizer builds, where ASan replaces
# malloc.
#
# bench_alloc_glibc is a throughput/footprint benchmark of the model: a
# program, not a ctest.
if(TARGET test_glibc_real)
  set_tests_properties(test_glibc_real PROPERTIES SKIP_RETURN_CODE 77)
endif()

if(EXISTS ${CMAKE_SOURCE_DIR}/tests/bench_alloc_glibc.c)
  add_executable(bench_alloc_glibc ${CMAKE_SOURCE_DIR}/tests/bench_alloc_glibc.c)
  target_link_libraries(bench_alloc_glibc PRIVATE rssim)
endif()
