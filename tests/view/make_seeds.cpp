// Writes the fuzzer's seed corpus (tests/testdata/view/seeds) from the synthetic recordings. locks.jfr is the
// JDK's own (see view_lock_test.cpp): java -XX:StartFlightRecording=filename=locks.jfr,settings=locks.jfc
// LockSeed 300, with JDK 17 and tests/view/java/.
#include <cstdio>
#include <string>

#include "tests/view/allocation_recording.h"
#include "tests/view/off_cpu_recording.h"
#include "tests/view/synthetic_recording.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: view_make_seeds DIR\n");
    return 2;
  }
  jfrbpf::test::writeMixedRecording(std::string(argv[1]) + "/mixed.jfr");
  jfrbpf::test::writeOffCpuRecording(std::string(argv[1]) + "/offcpu.jfr");
  jfrbpf::test::writeAllocationRecording(std::string(argv[1]) + "/alloc.jfr");
  return 0;
}
