// The process the symbolizer tests look at. It prints "<key> 0x<address>" lines for functions whose names
// the tests know, then "ready", and obeys commands on stdin:
//   dlopen <path>   load a symtest library and print its functions as lib.template / lib.c / lib.hidden
//   quit            exit
// It also maps anonymous executable memory (exe.anon) and a memfd holding non-ELF code bytes (exe.memfd),
// which stand for JIT code.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

namespace symtest_prog {

template <typename T>
struct Counter {
  __attribute__((noinline)) static T tick(T value);
};

template <typename T>
T Counter<T>::tick(T value) {
  for (int i = 0; i < 8; ++i) {
    value = value * 7 + i;
    asm volatile("" : "+r"(value));
  }
  return value;
}

template struct Counter<long>;

}  // namespace symtest_prog

extern "C" __attribute__((noinline)) int symtest_prog_entry(int value) {
  return static_cast<int>(symtest_prog::Counter<long>::tick(value));
}

namespace {

struct SymtestAddresses {
  const void* templateMethod;
  const void* cFunction;
  const void* hiddenFunction;
};

void printAddress(const char* key, const void* address) { std::printf("%s %p\n", key, address); }

void* mapAnonymousCode() {
  void* code = mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return nullptr;
  std::memset(code, 0xc3, 4096);  // ret
  return code;
}

void* mapMemfdCode() {
  int fd = memfd_create("symtest-jit", MFD_CLOEXEC);
  if (fd < 0) return nullptr;
  unsigned char code[4096];
  std::memset(code, 0xc3, sizeof code);
  void* mapped = MAP_FAILED;
  if (write(fd, code, sizeof code) == static_cast<ssize_t>(sizeof code)) {
    mapped = mmap(nullptr, sizeof code, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
  }
  close(fd);
  return mapped == MAP_FAILED ? nullptr : mapped;
}

void loadLibrary(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::printf("error %s\n", dlerror());
    return;
  }
  using AddressesFunction = const SymtestAddresses* (*)();
  auto addresses = reinterpret_cast<AddressesFunction>(dlsym(handle, "symtest_addresses"));
  if (addresses == nullptr) {
    std::printf("error no symtest_addresses in %s\n", path.c_str());
    return;
  }
  printAddress("lib.template", addresses()->templateMethod);
  printAddress("lib.c", addresses()->cFunction);
  printAddress("lib.hidden", addresses()->hiddenFunction);
}

}  // namespace

int main() {
  std::printf("pid %d\n", static_cast<int>(getpid()));
  printAddress("exe.template", reinterpret_cast<const void*>(&symtest_prog::Counter<long>::tick));
  printAddress("exe.c", reinterpret_cast<const void*>(&symtest_prog_entry));
  printAddress("exe.anon", mapAnonymousCode());
  printAddress("exe.memfd", mapMemfdCode());
  std::printf("ready\n");
  std::fflush(stdout);

  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.rfind("dlopen ", 0) == 0) {
      loadLibrary(line.substr(7));
    } else if (line == "quit") {
      return 0;
    } else {
      std::printf("error unknown command\n");
    }
    std::printf("ready\n");
    std::fflush(stdout);
  }
  return 0;
}
