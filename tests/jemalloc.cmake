# jemalloc.cmake — extra wiring for the jemalloc model's tests (included at
# the end of CMakeLists.txt).
#
# test_jemalloc_real (created by the tests/test_*.c glob, linked to rssim)
# also links the installed jemalloc so it can compare the model's derived
# size classes with the library's own (mallctl, nallocx).  Without jemalloc
# (Debian: apt-get install libjemalloc-dev) it builds as a stub that exits 77
# and ctest reports it as skipped.
pkg_check_modules(JEMALLOC IMPORTED_TARGET jemalloc)
if(TARGET test_jemalloc_real)
  if(JEMALLOC_FOUND)
    target_link_libraries(test_jemalloc_real PRIVATE PkgConfig::JEMALLOC)
    target_compile_definitions(test_jemalloc_real PRIVATE RS_HAVE_JEMALLOC=1)
  else()
    message(WARNING "jemalloc not found (Debian: apt-get install libjemalloc-dev): "
                    "test_jemalloc_real will be skipped")
  endif()
  set_tests_properties(test_jemalloc_real PROPERTIES SKIP_RETURN_CODE 77)
endif()
