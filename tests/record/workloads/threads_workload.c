/* A process with threads of known behaviour, for the record tests:
 *   spin-full   burns CPU in spin_full_work() all the time
 *   spin-half   burns CPU in spin_half_work() about half of the time, sleeps the rest
 *   syscaller   loops over small write(2)s to /dev/null: most of its time is in the kernel
 *   sleeper     sleeps: it must get (almost) no samples
 * Prints "ready <name> <tid>" per thread, then runs until killed or for argv[1] seconds; on a timed exit
 * it prints "cpu <name> <tid> <nanoseconds>" per thread (main included): the kernel's own CPU time of each
 * thread over the whole life of the process, the ground truth for the sampler. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void announce(const char* name) {
  prctl(PR_SET_NAME, name);
  printf("ready %s %ld\n", name, (long)syscall(SYS_gettid));
  fflush(stdout);
}

__attribute__((noinline)) void spin_full_work(void) {
  for (unsigned long i = 0; i < 100000; ++i) sink += i * 2654435761u;
}

__attribute__((noinline)) void spin_half_work(void) {
  double until = now_seconds() + 0.005;
  while (now_seconds() < until) sink += 1;
}

__attribute__((noinline)) void syscall_work(int fd) {
  char byte = 0;
  for (int i = 0; i < 100; ++i) {
    if (write(fd, &byte, 1) < 0) sink += 1;
  }
}

static void* spin_full(void* arg) {
  (void)arg;
  announce("spin-full");
  for (;;) spin_full_work();
  return NULL;
}

static void* spin_half(void* arg) {
  (void)arg;
  announce("spin-half");
  struct timespec rest = {0, 5000000};
  for (;;) {
    spin_half_work();
    nanosleep(&rest, NULL);
  }
  return NULL;
}

static void* syscaller(void* arg) {
  (void)arg;
  announce("syscaller");
  int fd = open("/dev/null", O_WRONLY);
  for (;;) syscall_work(fd);
  return NULL;
}

static void* sleeper(void* arg) {
  (void)arg;
  announce("sleeper");
  for (;;) sleep(1);
  return NULL;
}

static pid_t tids[4];

static void* with_tid(void* (*body)(void*), int index) {
  tids[index] = (pid_t)syscall(SYS_gettid);
  return body(NULL);
}

static void* run0(void* arg) { (void)arg; return with_tid(spin_full, 0); }
static void* run1(void* arg) { (void)arg; return with_tid(spin_half, 1); }
static void* run2(void* arg) { (void)arg; return with_tid(syscaller, 2); }
static void* run3(void* arg) { (void)arg; return with_tid(sleeper, 3); }

static long long thread_cpu_ns(pthread_t thread) {
  clockid_t clock;
  struct timespec ts;
  if (pthread_getcpuclockid(thread, &clock) != 0 || clock_gettime(clock, &ts) != 0) return -1;
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1e9;
  static const char* names[4] = {"spin-full", "spin-half", "syscaller", "sleeper"};
  pthread_t threads[4];
  void* (*bodies[4])(void*) = {run0, run1, run2, run3};
  for (int i = 0; i < 4; ++i) pthread_create(&threads[i], NULL, bodies[i], NULL);
  struct timespec tick = {0, 100000000};
  double end = now_seconds() + seconds;
  while (now_seconds() < end) nanosleep(&tick, NULL);
  for (int i = 0; i < 4; ++i) printf("cpu %s %d %lld\n", names[i], tids[i], thread_cpu_ns(threads[i]));
  printf("cpu main %ld %lld\n", (long)getpid(), thread_cpu_ns(pthread_self()));
  fflush(stdout);
  return 0;
}
