# glibc.cmake — extra wiring for the glibc model's tests (included at the end
# of CMakeLists.txt).
#
# test_glibc_real (created by the tests/test_*.c glob) compares the model with
# this machine's glibc malloc in a re-executed child; it needs no extra
# library, but exits 77 (skipped) in sanitizer builds, where ASan replaces
# malloc.
if(TARGET test_glibc_real)
  set_tests_properties(test_glibc_real PROPERTIES SKIP_RETURN_CODE 77)
endif()
