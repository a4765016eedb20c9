#pragma once
// Renders reader values as compact text for assertions and the dump tool (test support only):
// {field=value, …}, [a, b], "string", null. Depth-limited, because constants may refer to each other in loops.
#include <string>

#include "formats/jfr/reader/value.h"

namespace jfrbpf::jfr::testing {

std::string valueText(const reader::Value& value, int maxDepth = 8);
std::string objectText(const reader::RecordedObject& object, int maxDepth = 8);

}  // namespace jfrbpf::jfr::testing
