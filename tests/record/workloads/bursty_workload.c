/* Two threads for the CPU-time truth test of short bursts, as event loops, pollers and RPC threads run:
 *   bursty   burns argv[1] microseconds of its own CPU time, then sleeps argv[2] microseconds, again and again
 *   spinner  burns CPU without pause
 * Runs for argv[3] seconds, then prints "cpu <name> <tid> <nanoseconds>" per thread: the kernel's own CPU
 * time of each thread over its whole life (CLOCK_THREAD_CPUTIME_ID reads sum_exec_runtime, what schedstat
 * shows), the ground truth for the sampler. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long burst_ns, sleep_ns;
static volatile int stopping;
static volatile unsigned long sink;

struct thread_result {
  const char* name;
  long tid;
  long long cpu_ns;
};

static long long thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

__attribute__((noinline)) void burst_work(void) {
  long long until = thread_cpu_ns() + burst_ns;
  while (thread_cpu_ns() < until) sink += 1;
}

__attribute__((noinline)) void spin_work(void) {
  for (unsigned long i = 0; i < 100000; ++i) sink += i * 2654435761u;
}

static void* bursty(void* arg) {
  struct thread_result* result = arg;
  prctl(PR_SET_NAME, result->name);
  result->tid = syscall(SYS_gettid);
  struct timespec pause = {sleep_ns / 1000000000L, sleep_ns % 1000000000L};
  while (!stopping) {
    burst_work();
    nanosleep(&pause, NULL);
  }
  result->cpu_ns = thread_cpu_ns();
  return NULL;
}

static void* spinner(void* arg) {
  struct thread_result* result = arg;
  prctl(PR_SET_NAME, result->name);
  result->tid = syscall(SYS_gettid);
  while (!stopping) spin_work();
  result->cpu_ns = thread_cpu_ns();
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: bursty_workload BURST_US SLEEP_US SECONDS\n");
    return 2;
  }
  burst_ns = atol(argv[1]) * 1000L;
  sleep_ns = atol(argv[2]) * 1000L;
  struct thread_result results[2] = {{"bursty", 0, 0}, {"spinner", 0, 0}};
  pthread_t threads[2];
  pthread_create(&threads[0], NULL, bursty, &results[0]);
  pthread_create(&threads[1], NULL, spinner, &results[1]);
  sleep((unsigned)atoi(argv[3]));
  stopping = 1;
  for (int i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  for (int i = 0; i < 2; ++i) printf("cpu %s %ld %lld\n", results[i].name, results[i].tid, results[i].cpu_ns);
  return 0;
}
