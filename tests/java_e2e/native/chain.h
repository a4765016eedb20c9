/* The native call chain of native_chain: chain_01 .. chain_10 live in the executable, chain_11 .. chain_20
 * and the leaf in libe2e_chain.so, so an unwinder must cross from one object's unwind tables to the other's. */
#ifndef JFRBPF_TESTS_JAVA_E2E_NATIVE_CHAIN_H
#define JFRBPF_TESTS_JAVA_E2E_NATIVE_CHAIN_H

/* noinline keeps every link a real frame; GCC could still clone links (chain_05.constprop.0), clang does not. */
#if defined(__clang__)
#define CHAIN_LINK __attribute__((noinline))
#else
#define CHAIN_LINK __attribute__((noinline, noclone))
#endif

unsigned long chain_11(unsigned long x);

#endif
