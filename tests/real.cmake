# real.cmake — the ground-truth tools (docs/validation.md),
# included at the end of CMakeLists.txt:
#
#   rssim-real          real/rssim_real.c: replays an alloc trace with the real
#                       glibc, jemalloc or tcmalloc and stores a 'measured' run
#   librssim-record.so  real/record.c: LD_PRELOAD recorder of any program's
#                       malloc/free into an alloc trace
#   rssim-real-workload tests/real_workload.c: a small threaded, forking
#                       program the CLI test records
#
# tests/cli/real.sh (picked up by the tests/cli/*.sh glob as cli_real) finds
# all three next to the rssim program.  The recorder and the workload are
# preloaded into / run as ordinary programs, so they are built without the
# sanitizers even in an RSSIM_SANITIZE build (an ASan runtime must come first
# in a process, which an LD_PRELOAD library cannot guarantee).
find_package(Threads REQUIRED)

add_executable(rssim_real ${CMAKE_SOURCE_DIR}/real/rssim_real.c)
set_target_properties(rssim_real PROPERTIES OUTPUT_NAME rssim-real)
target_link_libraries(rssim_real PRIVATE rssim Threads::Threads ${CMAKE_DL_LIBS})

add_library(rssim_record SHARED ${CMAKE_SOURCE_DIR}/real/record.c)
set_target_properties(rssim_record PROPERTIES OUTPUT_NAME rssim-record
                      C_VISIBILITY_PRESET hidden)
target_include_directories(rssim_record PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(rssim_record PRIVATE Threads::Threads ${CMAKE_DL_LIBS})

add_executable(rssim_real_workload ${CMAKE_SOURCE_DIR}/tests/real_workload.c)
set_target_properties(rssim_real_workload PROPERTIES OUTPUT_NAME rssim-real-workload)
target_link_libraries(rssim_real_workload PRIVATE Threads::Threads)

foreach(tgt rssim_record rssim_real_workload)
  foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
    get_target_property(opts ${tgt} ${prop})
    if(opts)
      list(FILTER opts EXCLUDE REGEX "sanitize")
      set_target_properties(${tgt} PROPERTIES ${prop} "${opts}")
    endif()
  endforeach()
endforeach()

if(TEST cli_real)
  set_tests_properties(cli_real PROPERTIES TIMEOUT 300)
endif()
