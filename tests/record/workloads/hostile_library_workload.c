// A target that turns the files behind its mappings against the recorder (tests/record/hostile_targets_test):
//   hostile_library_workload LIBRARY DIR fifo
// copies LIBRARY into DIR, maps the copy, then, in a mount namespace of its own (which an unprivileged user
// may make, with a user namespace), mounts a FIFO over it: /proc/PID/maps still names the library's path,
// and that path in the target's view is now a FIFO, which blocks whoever opens it for reading until a
// writer comes. Prints "ready", and spins in the library's code until killed.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void writeText(const char* path, const char* text) {
  int fd = open(path, O_WRONLY);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
    perror(path);
    exit(2);
  }
  close(fd);
}

int main(int argc, char** argv) {
  if (argc != 4 || strcmp(argv[3], "fifo") != 0) {
    fprintf(stderr, "usage: %s LIBRARY DIR fifo\n", argv[0]);
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/libhostile.so", argv[2]);
  copyFile(argv[1], path);
  void* library = dlopen(path, RTLD_NOW);
  if (!library) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 2;
  }
  uint64_t (*spin)(uint64_t) = (uint64_t (*)(uint64_t))dlsym(library, "hostile_spin");
  char fifo[4096];
  snprintf(fifo, sizeof fifo, "%s/fifo", argv[2]);
  if (!spin || mkfifo(fifo, 0644) != 0) {
    perror("fifo");
    return 2;
  }
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    perror("unshare");
    return 2;
  }
  char map[64];
  snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
  writeText("/proc/self/uid_map", map);
  writeText("/proc/self/setgroups", "deny");
  snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
  writeText("/proc/self/gid_map", map);
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 || mount(fifo, path, NULL, MS_BIND, NULL) != 0) {
    perror("mount");
    return 2;
  }
  printf("ready\n");
  fflush(stdout);
  uint64_t sink = 0;
  for (;;) {
    sink += spin(1u << 20);
    __asm__ volatile("" : : "r"(sink));
  }
}
