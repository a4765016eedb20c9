// Looks like a HotSpot JVM from outside (a file named libjvm.so is mapped) but installs no SIGQUIT handler:
// the attach client must refuse it rather than send a SIGQUIT that would kill it. Usage: fake_jvm <libjvm.so>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
  if (fd < 0 || mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED) return 1;
  std::printf("ready\n");
  std::fflush(stdout);
  while (true) pause();
}
