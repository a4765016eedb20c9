// A target that turns the files behind its mappings against the recorder (tests/record/hostile_targets_test,
// bench/soak/run-soak):
//   hostile_library_workload LIBRARY DIR fifo
// copies LIBRARY into DIR, maps the copy, then, in a mount namespace of its own (which an unprivileged user
// may make, with a user namespace), mounts a FIFO over it: /proc/PID/maps still names the library's path,
// and that path in the target's view is now a FIFO, which blocks whoever opens it for reading until a
// writer comes.
//   hostile_library_workload LIBRARY DIR lying-elf
// copies LIBRARY into DIR with section headers that lie: its section-name, symbol and string tables each
// claim hundreds of MiB, and the file is made that long with a hole (a few KiB on disk), so a reader that
// trusts the headers reads gigabytes of zeros into memory. The loader does not look at section headers, so
// the copy maps and runs as well as the original.
// Either way it prints "ready", and spins in the library's code until killed.
//   hostile_library_workload LIBRARY COPY lie
// only writes such a copy to the path COPY (for a JVM to load: the soak's hostile JVM).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fifo_over_path.h"

static void copyFile(const char* from, const char* to) {
  int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
  if (in < 0 || out < 0) {
    perror("copy");
    exit(2);
  }
  char buffer[65536];
  ssize_t n;
  while ((n = read(in, buffer, sizeof buffer)) > 0) {
    if (write(out, buffer, (size_t)n) != n) exit(2);
  }
  close(in);
  close(out);
}

__attribute__((noreturn)) static void spinForever(uint64_t (*spin)(uint64_t)) {
  printf("ready\n");
  fflush(stdout);
  uint64_t sink = 0;
  for (;;) {
    sink += spin(1u << 20);
    __asm__ volatile("" : : "r"(sink));
  }
}

static void makeSectionHeadersLie(const char* path) {
  const uint64_t kClaimed = 900ull << 20;
  int fd = open(path, O_RDWR);
  Elf64_Ehdr header;
  if (fd < 0 || pread(fd, &header, sizeof header, 0) != (ssize_t)sizeof header || header.e_shentsize != sizeof(Elf64_Shdr)) {
    perror("lying-elf");
    exit(2);
  }
  for (unsigned i = 0; i < header.e_shnum; ++i) {
    Elf64_Shdr section;
    off_t at = (off_t)(header.e_shoff + (uint64_t)i * sizeof section);
    if (pread(fd, &section, sizeof section, at) != (ssize_t)sizeof section) exit(2);
    if (i != header.e_shstrndx && section.sh_type != SHT_SYMTAB && section.sh_type != SHT_STRTAB) continue;
    section.sh_size = kClaimed;
    if (pwrite(fd, &section, sizeof section, at) != (ssize_t)sizeof section) exit(2);
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || ftruncate(fd, st.st_size + (off_t)kClaimed) != 0) {
    perror("lying-elf");
    exit(2);
  }
  close(fd);
}

int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[3], "lie") == 0) {
    copyFile(argv[1], argv[2]);
    makeSectionHeadersLie(argv[2]);
    return 0;
  }
  const int fifoMode = argc == 4 && strcmp(argv[3], "fifo") == 0;
  if (argc != 4 || (!fifoMode && strcmp(argv[3], "lying-elf") != 0)) {
    fprintf(stderr, "usage: %s LIBRARY DIR fifo|lying-elf, or %s LIBRARY COPY lie\n", argv[0], argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/libhostile.so", argv[2]);
  copyFile(argv[1], path);
  if (!fifoMode) makeSectionHeadersLie(path);
  void* library = dlopen(path, RTLD_NOW);
  if (!library) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  uint64_t (*spin)(uint64_t) = (uint64_t (*)(uint64_t))dlsym(library, "hostile_spin");
  if (!fifoMode) {
    if (!spin) return 2;
    spinForever(spin);
  }
  char fifo[4096];
  snprintf(fifo, sizeof fifo, "%s/fifo", argv[2]);
  if (!spin) return 2;
  mountFifoOverPath(fifo, path);
  spinForever(spin);
}
