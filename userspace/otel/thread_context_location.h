#pragma once
// Where the threads of a process keep their OpenTelemetry thread context (OTEP 4947): the TLS variable
// otel_thread_ctx_v1, exported in .dynsym by the module that defines it, holds each thread's pointer to its
// context record. Readers find a thread's variable from its thread pointer (x86_64's fs base), in one of
// two ways, whatever access model the writer was built with:
//
//   static TLS   the module's block is at a fixed offset from every thread's thread pointer: the main
//                executable (local or initial exec), and libraries loaded at start (initial exec, TLSDESC,
//                or general dynamic, whose blocks glibc places in static TLS): address = tp + tpOffset;
//   dynamic TLS  a module loaded later (dlopen): its block is allocated per thread on first use, found
//                through the thread's DTV (tcbhead_t.dtv at tp + 8, 16-byte entries by module id):
//                address = dtv[moduleId].pointer + offset (no block yet: the thread has no context).
//
// The static facts come from the module's ELF file (the symbol, its TLS segment, the relocations that
// reach it); the rest from the process's memory (the GOT slots the dynamic linker filled). Every byte is
// the target's: a location is only what these say, and a test checks it against the writer's own view.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "userspace/proc/maps.h"
#include "userspace/unwind/elf_image.h"
#include "userspace/unwind/memory_reader.h"

namespace jfrbpf::otel {

inline constexpr const char* kThreadContextSymbol = "otel_thread_ctx_v1";

// What a module's ELF file says of its otel_thread_ctx_v1.
struct ThreadContextSymbol {
  uint64_t value = 0;        // st_value: the variable's offset in the module's TLS block
  uint64_t tlsMemSize = 0;   // PT_TLS
  uint64_t tlsAlign = 1;
  std::vector<uint64_t> tpoffSlots;    // GOT slots (link-time addresses) of R_X86_64_TPOFF64: initial exec
  std::vector<uint64_t> tlsdescSlots;  // of R_X86_64_TLSDESC
  std::vector<uint64_t> dtpmodSlots;   // of R_X86_64_DTPMOD64: general dynamic
};

// The module's otel_thread_ctx_v1, or nullopt when it exports none (a TLS object of 8 bytes in .dynsym).
std::optional<ThreadContextSymbol> findThreadContextSymbol(const unwind::ElfImage& elf);

struct ThreadContextLocation {
  enum class Kind { kStatic, kDynamic };
  Kind kind = Kind::kStatic;
  int64_t tpOffset = 0;    // kStatic
  uint64_t moduleId = 0;   // kDynamic
  uint64_t offset = 0;     // kDynamic: in the module's block
  std::string module;      // the file that defines it, for notes

  bool operator==(const ThreadContextLocation&) const = default;
};

// The location of `symbol`, defined by the module loaded with `bias` (its run-time address minus its link-time
// address), in the process whose memory is `memory`; `executable`: the module is the main program. nullopt
// when its GOT does not say yet (a TLSDESC the dynamic linker resolves lazily, on the first use). Throws
// jfrbpf::Error when what it says is not a location.
std::optional<ThreadContextLocation> locateThreadContext(const ThreadContextSymbol& symbol, uint64_t bias,
                                                         bool executable, const unwind::MemoryReader& memory);

// "static TLS at the thread pointer - 0x38", "dynamic TLS: module 2, offset 0x0".
std::string describe(const ThreadContextLocation& location);

// Looks through process `pid`'s modules for the one that exports otel_thread_ctx_v1, and locates it. nullopt
// when none does (or not yet, as above). Throws jfrbpf::Error when one does but cannot be located.
std::optional<ThreadContextLocation> locateThreadContext(pid_t pid, const std::vector<proc::Mapping>& maps);

}  // namespace jfrbpf::otel
