#pragma once
// The flame graph page's sources (formats/convert/flamegraph/), compiled in by flamegraph/embed.cmake.
#include <string_view>

namespace jfrbpf::convert::flamegraph_assets {

// page.html: the template, with {{TITLE}}, {{STYLE}}, {{SCRIPT}} and {{DATA}} placeholders.
extern const std::string_view kPage;
extern const std::string_view kStyle;   // flamegraph.css
extern const std::string_view kScript;  // flamegraph.js

}  // namespace jfrbpf::convert::flamegraph_assets
