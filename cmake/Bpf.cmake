# BPF build path: vmlinux.h from the running kernel's BTF, clang -target bpf, bpftool skeletons (CO-RE).
find_program(BPF_CLANG NAMES clang clang-14 REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)
set(JFRBPF_BTF_FILE /sys/kernel/btf/vmlinux CACHE FILEPATH "BTF used to generate vmlinux.h")
if(NOT EXISTS ${JFRBPF_BTF_FILE})
  message(FATAL_ERROR "No kernel BTF at ${JFRBPF_BTF_FILE}: build on a kernel with CONFIG_DEBUG_INFO_BTF=y "
                      "or pass -DJFRBPF_BTF_FILE=<path to a vmlinux BTF file>")
endif()

set(BPF_GENERATED_DIR ${CMAKE_BINARY_DIR}/bpf-generated)
file(MAKE_DIRECTORY ${BPF_GENERATED_DIR})
add_custom_command(
  OUTPUT ${BPF_GENERATED_DIR}/vmlinux.h
  COMMAND ${BPFTOOL} btf dump file ${JFRBPF_BTF_FILE} format c > ${BPF_GENERATED_DIR}/vmlinux.h
  COMMENT "Generating vmlinux.h from ${JFRBPF_BTF_FILE}"
  VERBATIM)
add_custom_target(vmlinux_h DEPENDS ${BPF_GENERATED_DIR}/vmlinux.h)

# add_bpf_skeleton(<name> <source.bpf.c> [DEPENDS headers...])
# Produces interface target <name>_skel whose include path holds <name>.skel.h.
function(add_bpf_skeleton name source)
  cmake_parse_arguments(ARG "" "" "DEPENDS" ${ARGN})
  set(obj ${BPF_GENERATED_DIR}/${name}.bpf.o)
  set(linked ${BPF_GENERATED_DIR}/${name}.linked.o)
  set(skel ${BPF_GENERATED_DIR}/${name}.skel.h)
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-function
            -I${BPF_GENERATED_DIR} -I${CMAKE_SOURCE_DIR}/bpf -c ${CMAKE_CURRENT_SOURCE_DIR}/${source} -o ${obj}
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${source} vmlinux_h ${ARG_DEPENDS}
    COMMENT "BPF ${source}"
    VERBATIM)
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen object ${linked} ${obj}
    COMMAND ${BPFTOOL} gen skeleton ${linked} name ${name} > ${skel}
    DEPENDS ${obj}
    COMMENT "BPF skeleton ${name}.skel.h"
    VERBATIM)
  add_custom_target(${name}_skel_gen DEPENDS ${skel})
  add_library(${name}_skel INTERFACE)
  add_dependencies(${name}_skel ${name}_skel_gen)
  target_include_directories(${name}_skel INTERFACE ${BPF_GENERATED_DIR} ${CMAKE_SOURCE_DIR}/bpf)
  target_link_libraries(${name}_skel INTERFACE PkgConfig::LIBBPF PkgConfig::LIBELF PkgConfig::ZLIB)
endfunction()
