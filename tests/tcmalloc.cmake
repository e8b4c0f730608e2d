# tcmalloc.cmake — extra wiring for the tcmalloc model's tests (included at
# the end of CMakeLists.txt).
#
# test_tcmalloc_real (created by the tests/test_*.c glob, linked to rssim)
# also links the installed gperftools tcmalloc_minimal so it can compare the
# model's derived size classes with the library's own (tc_nallocx, page-heap
# properties).  Without it (Debian: apt-get install libgoogle-perftools-dev)
# it builds as a stub that exits 77 and ctest reports it as skipped.
pkg_check_modules(TCMALLOC_MINIMAL IMPORTED_TARGET libtcmalloc_minimal)
if(TARGET test_tcmalloc_real)
  if(TCMALLOC_MINIMAL_FOUND)
    target_link_libraries(test_tcmalloc_real PRIVATE PkgConfig::TCMALLOC_MINIMAL)
    target_compile_definitions(test_tcmalloc_real PRIVATE RS_HAVE_TCMALLOC=1)
  else()
    message(WARNING "libtcmalloc_minimal not found (Debian: apt-get install "
                    "libgoogle-perftools-dev): test_tcmalloc_real will be skipped")
  endif()
  set_tests_properties(test_tcmalloc_real PROPERTIES SKIP_RETURN_CODE 77)
  if(RSSIM_SANITIZE)
    # libtcmalloc_minimal leaks one 8-byte object by design at start
    # (MallocExtension::Register); LeakSanitizer would fail the test for it.
    set_property(TEST test_tcmalloc_real APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endif()
endif()
