// Minimal JVMTI agent for the attach tests. Options: "<output file>[,<anything>]". Agent_OnAttach appends the
// whole options string as one line to <output file> (so repeated attaches add lines) and returns
// TEST_AGENT_RESULT. If the options contain "sleep-ms=N" it first sleeps N ms, to exercise reply timeouts.
#include <jvmti.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef TEST_AGENT_RESULT
#define TEST_AGENT_RESULT 0
#endif

extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM*, char* options, void*) {
  if (options == nullptr) return JNI_ERR;
  if (const char* sleep = std::strstr(options, "sleep-ms="))
    usleep(static_cast<useconds_t>(std::atoi(sleep + 9)) * 1000);
  const char* comma = std::strchr(options, ',');
  size_t pathLength = comma ? static_cast<size_t>(comma - options) : std::strlen(options);
  char path[4096];
  if (pathLength == 0 || pathLength >= sizeof path) return JNI_ERR;
  std::memcpy(path, options, pathLength);
  path[pathLength] = '\0';
  FILE* out = std::fopen(path, "a");
  if (out == nullptr) return JNI_ERR;
  std::fprintf(out, "%s\n", options);
  std::fclose(out);
  return TEST_AGENT_RESULT;
}
