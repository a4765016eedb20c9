// A process that is not a JVM until told: waits for a line on stdin, then maps a file named libjvm.so (as a
// java launcher does some time after exec), says "mapped" and sleeps. With "now" as argument it maps at once.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [now]\n", argv[0]);
    return 2;
  }
  if (argc < 3 || std::strcmp(argv[2], "now") != 0) {
    char line[16];
    if (!std::fgets(line, sizeof line, stdin)) return 1;
  }
  std::string path = std::string(argv[1]) + "/libjvm.so";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 || ::ftruncate(fd, 4096) != 0) return 1;
  void* mapping = ::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapping == MAP_FAILED) return 1;
  std::printf("mapped\n");
  std::fflush(stdout);
  for (;;) ::pause();
}
