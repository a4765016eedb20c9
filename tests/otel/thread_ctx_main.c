/* A process whose otel_thread_ctx_v1 is defined where it was linked: in the program itself or in a library it
 * links (thread_ctx_report linked in), or in a library it loads with dlopen (its path in argv[1]). Prints
 * thread_ctx_report's line, then waits until stdin closes. */
#include <dlfcn.h>
#include <stdio.h>

typedef void (*report_fn)(char*, size_t);

#ifdef THREAD_CTX_LINKED
void thread_ctx_report(char* out, size_t size);
#endif

int main(int argc, char** argv) {
  report_fn report = NULL;
#ifdef THREAD_CTX_LINKED
  report = thread_ctx_report;
  (void)argc;
  (void)argv;
#else
  if (argc != 2) {
    fprintf(stderr, "usage: thread_ctx_dlopen LIBRARY\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW);
  if (!library) {
    fprintf(stderr, "%s\n", dlerror());
    return 1;
  }
  report = (report_fn)dlsym(library, "thread_ctx_report");
  if (!report) return 1;
#endif
  char line[128];
  report(line, sizeof line);
  printf("%s\n", line);
  fflush(stdout);
  while (getchar() != EOF) {
  }
  return 0;
}
