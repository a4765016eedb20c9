/* A process that publishes its OpenTelemetry process context (otel_writer.h) and burns CPU until killed, for
 * jfrbpf record's tests: context_publisher SERVICE_NAME [UPDATED_SERVICE_NAME]. It prints "published" once its
 * context is there; with a second name, a line on stdin makes it publish that one and print "updated". */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: context_publisher SERVICE_NAME [UPDATED_SERVICE_NAME]\n");
    return 2;
  }
  publish(argv[1]);
  printf("published\n");
  fflush(stdout);
  const char* update = argc == 3 ? argv[2] : NULL;
  for (;;) {
    for (unsigned long i = 0; i < 1000000; i++) sink += i * i;
    struct pollfd input = {.fd = STDIN_FILENO, .events = POLLIN};
    if (update && poll(&input, 1, 0) == 1) {
      publish(update);
      printf("updated\n");
      fflush(stdout);
      update = NULL;
    }
  }
}
