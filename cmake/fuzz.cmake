# NE_FUZZ=ON (clang only; `make fuzz`): every object is built with libFuzzer's coverage
# instrumentation plus ASan + UBSan, and fuzz/CMakeLists.txt adds the fuzz_<target> binaries
# (custom target fuzz_targets). Off by default, so gcc builds are untouched.
option(NE_FUZZ "Build the libFuzzer targets in fuzz/ (clang)" OFF)
if(NE_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NE_FUZZ=ON needs clang (configure with CC=clang CXX=clang++)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -g
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
  add_custom_target(fuzz_targets)
endif()
