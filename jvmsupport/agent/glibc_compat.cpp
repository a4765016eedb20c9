// Keeps the agent loadable by JVMs on old distributions (glibc 2.17) although the static libstdc++ and
// libgcc it links (for the classfile rewriter) were built against a newer glibc. Each definition here is
// hidden, so it only satisfies the agent's own references and never interposes on the JVM's:
//   _dl_find_object (2.35)      the unwinder's FDE lookup, done with dl_iterate_phdr as before glibc 2.35
//   __libc_single_threaded (2.32)  libstdc++'s "skip atomics" shortcut: never taken, the JVM is threaded
//   getentropy (2.25), arc4random (2.36)  std::random_device, linked but unused: the getrandom syscall
//   pthread_once, __pthread_key_create (2.34 defaults)  the unwinder's, forwarded to their 2.2.5 versions
//   pthread_key_create, pthread_get/setspecific (2.34)  the lock and allocation profilers' per-thread state, forwarded likewise
//   __cxa_get_globals(_fast)     the C++ runtime's per-thread exception state, kept with pthread keys
//                                instead of __thread, whose __tls_get_addr would make ld.so a dependency
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#if !defined(__x86_64__)
#error "the glibc symbol versions below are x86_64's"
#endif

#define JFRBPF_HIDDEN __attribute__((visibility("hidden")))

extern "C" {

// The original versions, under names of our own (no header may declare them).
int jfrbpf_pthread_once_2_2_5(pthread_once_t* once, void (*init)(void));
int jfrbpf_pthread_key_create_2_2_5(pthread_key_t* key, void (*destructor)(void*));
void* jfrbpf_pthread_getspecific_2_2_5(pthread_key_t key);
int jfrbpf_pthread_setspecific_2_2_5(pthread_key_t key, const void* value);
__asm__(".symver jfrbpf_pthread_once_2_2_5, pthread_once@GLIBC_2.2.5");
__asm__(".symver jfrbpf_pthread_key_create_2_2_5, pthread_key_create@GLIBC_2.2.5");
__asm__(".symver jfrbpf_pthread_getspecific_2_2_5, pthread_getspecific@GLIBC_2.2.5");
__asm__(".symver jfrbpf_pthread_setspecific_2_2_5, pthread_setspecific@GLIBC_2.2.5");

JFRBPF_HIDDEN char __libc_single_threaded = 0;

JFRBPF_HIDDEN int pthread_once(pthread_once_t* once, void (*init)(void)) {
  return jfrbpf_pthread_once_2_2_5(once, init);
}

JFRBPF_HIDDEN int __pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return jfrbpf_pthread_key_create_2_2_5(key, destructor);
}

JFRBPF_HIDDEN int pthread_key_create(pthread_key_t* key, void (*destructor)(void*)) {
  return jfrbpf_pthread_key_create_2_2_5(key, destructor);
}

JFRBPF_HIDDEN void* pthread_getspecific(pthread_key_t key) { return jfrbpf_pthread_getspecific_2_2_5(key); }

JFRBPF_HIDDEN int pthread_setspecific(pthread_key_t key, const void* value) {
  return jfrbpf_pthread_setspecific_2_2_5(key, value);
}

JFRBPF_HIDDEN int getentropy(void* buffer, size_t length) {
  if (length > 256) {
    errno = EIO;
    return -1;
  }
  auto* out = static_cast<unsigned char*>(buffer);
  while (length > 0) {
    long n = syscall(SYS_getrandom, out, length, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    out += n;
    length -= static_cast<size_t>(n);
  }
  return 0;
}

JFRBPF_HIDDEN uint32_t arc4random(void) {
  uint32_t value = 0;
  getentropy(&value, sizeof value);
  return value;
}

namespace {

struct FindObject {
  uintptr_t address;
  dl_find_object* result;
  bool found;
};

int findObject(dl_phdr_info* info, size_t, void* data) {
  auto* query = static_cast<FindObject*>(data);
  uintptr_t low = UINTPTR_MAX, high = 0, ehFrame = 0;
  bool contains = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD) {
      if (start < low) low = start;
      if (start + segment.p_memsz > high) high = start + segment.p_memsz;
      if (query->address >= start && query->address < start + segment.p_memsz) contains = true;
    } else if (segment.p_type == PT_GNU_EH_FRAME) {
      ehFrame = start;
    }
  }
  if (!contains) return 0;
  query->result->dlfo_flags = 0;
  query->result->dlfo_map_start = reinterpret_cast<void*>(low);
  query->result->dlfo_map_end = reinterpret_cast<void*>(high);
  query->result->dlfo_link_map = nullptr;
  query->result->dlfo_eh_frame = reinterpret_cast<void*>(ehFrame);
  query->found = true;
  return 1;
}

}  // namespace

JFRBPF_HIDDEN int _dl_find_object(void* address, dl_find_object* result) noexcept {
  FindObject query{reinterpret_cast<uintptr_t>(address), result, false};
  dl_iterate_phdr(findObject, &query);
  return query.found ? 0 : -1;
}

// The Itanium C++ ABI's __cxa_eh_globals: the exceptions a thread has caught and not yet finished with.
struct EhGlobals {
  void* caughtExceptions;
  unsigned int uncaughtExceptions;
};

namespace {
pthread_once_t ehGlobalsOnce = PTHREAD_ONCE_INIT;
pthread_key_t ehGlobalsKey;
bool ehGlobalsKeyValid = false;
EhGlobals ehGlobalsWithoutMemory;  // shared fallback when a thread's own cannot be allocated

void createEhGlobalsKey() { ehGlobalsKeyValid = jfrbpf_pthread_key_create_2_2_5(&ehGlobalsKey, std::free) == 0; }
}  // namespace

JFRBPF_HIDDEN EhGlobals* __cxa_get_globals() noexcept {
  jfrbpf_pthread_once_2_2_5(&ehGlobalsOnce, createEhGlobalsKey);
  if (!ehGlobalsKeyValid) return &ehGlobalsWithoutMemory;
  auto* globals = static_cast<EhGlobals*>(jfrbpf_pthread_getspecific_2_2_5(ehGlobalsKey));
  if (globals != nullptr) return globals;
  globals = static_cast<EhGlobals*>(std::calloc(1, sizeof(EhGlobals)));
  if (globals == nullptr || jfrbpf_pthread_setspecific_2_2_5(ehGlobalsKey, globals) != 0) {
    std::free(globals);
    return &ehGlobalsWithoutMemory;
  }
  return globals;
}

JFRBPF_HIDDEN EhGlobals* __cxa_get_globals_fast() noexcept { return __cxa_get_globals(); }

}  // extern "C"
