// A library whose functions the symbolizer tests must name exactly: a class template member in a namespace
// (demangling), a C function (also in .dynsym), and a file-local function (only in .symtab, so stripping
// hides it unless a debug file is found). SYMTEST_NS names the namespace, so two builds differ visibly.
#ifndef SYMTEST_NS
#error "build with -DSYMTEST_NS=<namespace>"
#endif

namespace SYMTEST_NS {

template <typename T>
struct Accumulator {
  __attribute__((noinline)) static T add(T total, T value);
};

template <typename T>
T Accumulator<T>::add(T total, T value) {
  for (int i = 0; i < 8; ++i) {
    total = total * 31 + value;
    asm volatile("" : "+r"(total));  // keeps the loop, and so a function body of some size
  }
  return total;
}

template struct Accumulator<int>;

}  // namespace SYMTEST_NS

static __attribute__((noinline)) int hidden_helper(int value) {
  for (int i = 0; i < 8; ++i) {
    value = value * 17 + i;
    asm volatile("" : "+r"(value));
  }
  return value;
}

extern "C" {

__attribute__((noinline)) int symtest_c_entry(int value) {
  for (int i = 0; i < 8; ++i) {
    value = value * 13 + i;
    asm volatile("" : "+r"(value));
  }
  return value + hidden_helper(value);
}

struct SymtestAddresses {
  const void* templateMethod;
  const void* cFunction;
  const void* hiddenFunction;
};

const SymtestAddresses* symtest_addresses() {
  static const SymtestAddresses addresses{reinterpret_cast<const void*>(&SYMTEST_NS::Accumulator<int>::add),
                                          reinterpret_cast<const void*>(&symtest_c_entry),
                                          reinterpret_cast<const void*>(&hidden_helper)};
  return &addresses;
}

}  // extern "C"
