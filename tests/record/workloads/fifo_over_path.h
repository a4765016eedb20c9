// Mounts a FIFO over `path` in a user and mount namespace of the caller's own, which an unprivileged user may
// make: /proc/PID/maps still names the file mapped from `path`, and that path in the caller's view is now a
// FIFO, which blocks whoever opens it for reading until a writer comes. `fifo` is created for it. Exits
// with status 2, saying why, if any step fails. Shared by the hostile workloads (C and C++).
#ifndef JFRBPF_TESTS_FIFO_OVER_PATH_H
#define JFRBPF_TESTS_FIFO_OVER_PATH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static inline void fifoOverPathWrite(const char* file, const char* text) {
  int fd = open(file, O_WRONLY);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
    perror(file);
    exit(2);
  }
  close(fd);
}

static inline void mountFifoOverPath(const char* fifo, const char* path) {
  if (mkfifo(fifo, 0644) != 0) {
    perror("mkfifo");
    exit(2);
  }
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
    perror("unshare");
    exit(2);
  }
  char map[64];
  snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
  fifoOverPathWrite("/proc/self/uid_map", map);
  fifoOverPathWrite("/proc/self/setgroups", "deny");
  snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
  fifoOverPathWrite("/proc/self/gid_map", map);
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 || mount(fifo, path, NULL, MS_BIND, NULL) != 0) {
    perror("mount");
    exit(2);
  }
}

#endif
