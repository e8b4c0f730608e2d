# allocators.cmake — extra wiring for the allocator models' ground-truth
# tests (included at the end of CMakeLists.txt).
#
# test_jemalloc_real and test_tcmalloc_real (created by the tests/test_*.c
# glob, linked to rssim) also link the installed library, so they can compare
# the model's derived size classes and behaviour with the library's own
# (mallctl and nallocx; tc_nallocx and the page heap).  Without the library
# they build as a stub that exits 77 and ctest reports them as skipped.

# rssim_real_allocator(TEST PKG DEFINE DEBIAN_PACKAGE)
function(rssim_real_allocator test pkg define debian)
  if(NOT TARGET ${test})
    return()
  endif()
  pkg_check_modules(${define} IMPORTED_TARGET ${pkg})
  if(${define}_FOUND)
    target_link_libraries(${test} PRIVATE PkgConfig::${define})
    target_compile_definitions(${test} PRIVATE RS_HAVE_${define}=1)
  else()
    message(WARNING "${pkg} not found (Debian: apt-get install ${debian}): ${test} will be skipped")
  endif()
  set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE 77)
endfunction()

rssim_real_allocator(test_jemalloc_real jemalloc JEMALLOC libjemalloc-dev)
rssim_real_allocator(test_tcmalloc_real libtcmalloc_minimal TCMALLOC libgoogle-perftools-dev)
if(TARGET test_tcmalloc_real AND RSSIM_SANITIZE)
  # libtcmalloc_minimal leaks one 8-byte object by design at start
  # (MallocExtension::Register); LeakSanitizer would fail the test for it.
  set_property(TEST test_tcmalloc_real APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
