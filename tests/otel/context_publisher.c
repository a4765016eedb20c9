/* A process that publishes its OpenTelemetry process context (otel_writer.h) and burns CPU until killed, for
 * jfrbpf record's tests: context_publisher SERVICE_NAME [UPDATED_SERVICE_NAME AFTER_MS]. It prints
 * "published" once its context is there, and "updated" after the update. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "otel_writer.h"

static volatile unsigned long sink;

static void publish(const char* service) {
  const char* resource[] = {"service.name", service, "deployment.environment.name", "test"};
  const char* keys[] = {"http.route", "http.method"};
  if (otel_writer_publish(resource, 2, "tls_v1", keys, 2) != 0) {
    perror("otel_writer_publish");
    exit(1);
  }
}

static double seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 4) {
    fprintf(stderr, "usage: context_publisher SERVICE_NAME [UPDATED_SERVICE_NAME AFTER_MS]\n");
    return 2;
  }
  publish(argv[1]);
  printf("published\n");
  fflush(stdout);
  double updateAt = argc == 4 ? seconds() + atof(argv[3]) / 1000 : 0;
  for (;;) {
    for (unsigned long i = 0; i < 1000000; i++) sink += i * i;
    if (updateAt > 0 && seconds() >= updateAt) {
      publish(argv[2]);
      printf("updated\n");
      fflush(stdout);
      updateAt = 0;
    }
  }
}
