#pragma once
// The BPF walker's view of one JVM (bpf/hotspot_abi.h), derived from the JVM's own VMStructs, code heaps and
// interpreter range as the agent reported them. Nothing is assumed per JDK version except the two
// interpreter frame slots VMStructs does not export (stable since JDK 9).
#include <optional>
#include <string>

#include "bpf/hotspot_abi.h"
#include "userspace/jvm/java_model.h"

namespace jfrbpf::record {

// nullopt with `whyNot` set when the model lacks something the walker needs.
std::optional<jfrbpf_hotspot> hotspotLayout(const jvm::JavaModel& model, std::string& whyNot);

}  // namespace jfrbpf::record
