# add_fuzz_target(<name> <source> LIBS ...): a libFuzzer binary with clang; with other compilers, the same
# LLVMFuzzerTestOneInput linked to a driver that replays corpus files, so every build still exercises it.
function(add_fuzz_target name source)
  cmake_parse_arguments(ARG "" "" "LIBS" ${ARGN})
  add_executable(${name} ${source})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
  else()
    target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.cpp)
  endif()
endfunction()

# How long each fuzz test runs under ctest. Longer runs belong to dedicated fuzzing sessions:
#   cmake -DJFRBPF_FUZZ_SECONDS=600 ... && ctest -R Fuzz
set(JFRBPF_FUZZ_SECONDS 5 CACHE STRING "Seconds each libFuzzer test runs under ctest")

# The fuzzers of what a target controls (its files, /proc text, attach replies, agent records) fail on any single
# allocation above what a recording at the default --memory-limit (256 MiB) gives one object: a quarter, 64 MiB.
# RSS limits stay loose: AddressSanitizer's quarantine alone holds up to 256 MiB.
set(JFRBPF_FUZZ_MALLOC_LIMIT -malloc_limit_mb=64)
