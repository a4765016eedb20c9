// Written in assembly so that the uprobe site is exactly a 5-byte NOP (0f 1f 44 00 00) whatever the
// compiler does, with unwind information (CFI) so that the BPF stack walker steps out of them.
#include "jvmsupport/agent/hook_stubs.h"

#if !defined(__x86_64__)
#error "the method hook stubs are written for x86_64"
#endif

#define JFRBPF_HOOK_STUB(name)         \
  ".p2align 4\n"                       \
  ".globl " #name "\n"                 \
  ".hidden " #name "\n"                \
  ".type " #name ", @function\n" #name \
  ":\n"                                \
  ".cfi_startproc\n"                   \
  ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n" \
  "ret\n"                              \
  ".cfi_endproc\n"                     \
  ".size " #name ", .-" #name "\n"

__asm__(".text\n" JFRBPF_HOOK_STUB(jfrbpf_method_enter) JFRBPF_HOOK_STUB(jfrbpf_method_exit));
