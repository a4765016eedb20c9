static __attribute__((noinline)) int helper(int x) { return x * 3 + 1; }
int exported(int x) { return helper(x) + 2; }
int cxx_name(int x) __asm__("_ZN2ns3fooIiEEvT_");
int cxx_name(int x) { return exported(x) * 5; }
static int impl(int x) { return x + 7; }
static void* resolve_chosen(void) { return (void*)impl; }
int chosen(int) __attribute__((ifunc("resolve_chosen")));
__asm__(".globl unsized\n.type unsized,@function\nunsized:\n  ret\n");
