/* A process whose threads switch OpenTelemetry thread contexts (OTEP 4947) every SWITCH_US microseconds, for
 * the tests of what jfrbpf's samples carry, and for the cost of reading them:
 * context_switcher [--null|--unpublished|--hostile] THREADS SECONDS SWITCH_US [LIBRARY].
 *
 * It publishes its process context (service "switcher", schema tls_v1, keys http.route and thread), then each
 * thread t (named "switch-t") loops over contexts k = 0, 1, 2: it points its otel_thread_ctx_v1 at its record
 * for k (switch_records.h) and burns CPU in spin_ctx<k> for SWITCH_US, then clears it and burns in spin_outside
 * for as long. So a sample's frames say which context it must carry, and none in spin_outside. The variable is defined where it was linked (thread_ctx_set linked in), or in
 * LIBRARY, loaded with dlopen. It prints "switching" once every thread has set a context, and runs SECONDS.
 * --null: the threads never set a context (their variable stays null); --unpublished: they do, but the process
 * publishes no process context, so that a reader does not look for their variable; --hostile: after each
 * context, the threads point their variable at memory that is not mapped (in spin_unmapped), at a record whose
 * attributes' size is over the OTEP's bound (spin_too_large), and at one whose value holds a terminal escape
 * and invalid UTF-8 (spin_escaped). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "otel_writer.h"
#include "switch_records.h"

typedef void (*set_fn)(void*);
static set_fn set_context;

#ifdef THREAD_CTX_LINKED
void thread_ctx_set(void* record);
#endif

enum { kContexts = 3, kMaxThreads = 16 };

static struct switch_record records[kMaxThreads][kContexts] __attribute__((aligned(8)));
static long switch_ns;
static volatile unsigned long sink;
static int threads_set;
static pthread_mutex_t set_lock = PTHREAD_MUTEX_INITIALIZER;
static int never_set;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void burn(void) {
  uint64_t until = now_ns() + (uint64_t)switch_ns;
  while (now_ns() < until) {
    for (int i = 0; i < 200; i++) sink += (unsigned long)i * i;
  }
}

__attribute__((noinline)) void spin_ctx0(void) { burn(); __asm__ volatile(""); }
__attribute__((noinline)) void spin_ctx1(void) { burn(); __asm__ volatile(""); }
__attribute__((noinline)) void spin_ctx2(void) { burn(); __asm__ volatile(""); }
__attribute__((noinline)) void spin_outside(void) { burn(); __asm__ volatile(""); }
__attribute__((noinline)) void spin_unmapped(void) { burn(); __asm__ volatile(""); }
__attribute__((noinline)) void spin_too_large(void) { burn(); __asm__ volatile(""); }
__attribute__((noinline)) void spin_escaped(void) { burn(); __asm__ volatile(""); }

static int hostile;
static struct switch_record too_large, escaped;

/* After context k of thread t: what a hostile writer sets. */
static void hostile_round(void) {
  set_context((void*)16);  /* the first page is never mapped */
  spin_unmapped();
  set_context(&too_large);
  spin_too_large();
  set_context(&escaped);
  spin_escaped();
  set_context(NULL);
}

static void* run(void* arg) {
  int t = (int)(intptr_t)arg;
  char name[16];
  snprintf(name, sizeof name, "switch-%d", t);
  pthread_setname_np(pthread_self(), name);
  void (*spin[kContexts])(void) = {spin_ctx0, spin_ctx1, spin_ctx2};
  set_context(&records[t][0]);
  set_context(NULL);
  pthread_mutex_lock(&set_lock);
  threads_set++;
  pthread_mutex_unlock(&set_lock);
  for (;;) {
    for (int k = 0; k < kContexts; k++) {
      if (!never_set) set_context(&records[t][k]);
      spin[k]();
      set_context(NULL);
      spin_outside();
      if (hostile) hostile_round();
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  int publish = 1;
  if (argc > 1 && strcmp(argv[1], "--null") == 0) {
    never_set = 1;
    argc--, argv++;
  } else if (argc > 1 && strcmp(argv[1], "--unpublished") == 0) {
    publish = 0;
    argc--, argv++;
  } else if (argc > 1 && strcmp(argv[1], "--hostile") == 0) {
    hostile = 1;
    argc--, argv++;
  }
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: context_switcher [--null|--unpublished|--hostile] THREADS SECONDS SWITCH_US [LIBRARY]\n");
    return 2;
  }
  int threads = atoi(argv[1]);
  int seconds = atoi(argv[2]);
  switch_ns = atol(argv[3]) * 1000;
  if (threads < 1 || threads > kMaxThreads || seconds < 1 || switch_ns < 1000) return 2;
#ifdef THREAD_CTX_LINKED
  set_context = thread_ctx_set;
#else
  if (argc != 5) {
    fprintf(stderr, "context_switcher: LIBRARY is needed\n");
    return 2;
  }
  void* library = dlopen(argv[4], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  set_context = (set_fn)dlsym(library, "thread_ctx_set");
  if (!set_context) return 1;
#endif
  const char* resource[] = {"service.name", "switcher"};
  const char* keys[] = {"http.route", "thread"};
  if (publish && otel_writer_publish(resource, 1, "tls_v1", keys, 2) != 0) {
    perror("otel_writer_publish");
    return 1;
  }
  for (int t = 0; t < threads; t++) {
    for (int k = 0; k < kContexts; k++) switch_record_fill(&records[t][k], t, k);
  }
  switch_record_fill(&too_large, 9, 0);
  too_large.attrs_size = 1000;  /* over 612: only 64 bytes follow it */
  switch_record_fill(&escaped, 9, 1);
  escaped.attrs_size = 0;
  const uint8_t value[] = {0, 7, 0x1b, '[', '2', 'J', 0xff, ',', 'x'};
  memcpy(escaped.attrs, value, sizeof value);
  escaped.attrs_size = sizeof value;
  pthread_t ids[kMaxThreads];
  for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, run, (void*)(intptr_t)t);
  for (;;) {
    pthread_mutex_lock(&set_lock);
    int ready = threads_set;
    pthread_mutex_unlock(&set_lock);
    if (ready == threads) break;
    struct timespec pause = {0, 1000000};
    nanosleep(&pause, NULL);
  }
  printf("switching\n");
  fflush(stdout);
  struct timespec rest = {seconds, 0};
  nanosleep(&rest, NULL);
  return 0;
}
