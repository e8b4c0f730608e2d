# real.cmake — test wiring of the ground-truth tools (docs/validation.md),
# included at the end of CMakeLists.txt, which builds the tools themselves
# (rssim-real, librssim-record.so):
#
#   rssim-real-workload tests/real_workload.c: a small threaded, forking
#                       program the CLI test records
#
# tests/cli/real.sh (picked up by the tests/cli/*.sh glob as cli_real) finds
# all three next to the rssim program.  The workload is run as an ordinary
# program with the recorder preloaded, so like the recorder it is built
# without the sanitizers even in an RSSIM_SANITIZE build.
add_executable(rssim_real_workload ${CMAKE_SOURCE_DIR}/tests/real_workload.c)
set_target_properties(rssim_real_workload PROPERTIES OUTPUT_NAME rssim-real-workload)
target_link_libraries(rssim_real_workload PRIVATE Threads::Threads)

foreach(prop COMPILE_OPTIONS LINK_OPTIONS)
  get_target_property(opts rssim_real_workload ${prop})
  if(opts)
    list(FILTER opts EXCLUDE REGEX "sanitize")
    set_target_properties(rssim_real_workload PROPERTIES ${prop} "${opts}")
  endif()
endforeach()

if(TEST cli_real)
  set_tests_properties(cli_real PROPERTIES TIMEOUT 300)
endif()
