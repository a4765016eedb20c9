// Fuzz target: any bytes as a recording through everything `jfrbpf view` and `jfrbpf convert` do with one:
// the digest, every view, and every output format of the CPU, off-CPU, wall-clock, allocation and lock profiles.
// Malformed input may only end in jfrbpf::Error.
#include <cstddef>
#include <cstdint>
#include <span>
#include <sstream>

#include "base/error.h"
#include "formats/convert/convert.h"
#include "formats/jfr/reader/recording.h"
#include "userspace/view/recording_digest.h"
#include "userspace/view/views.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jfrbpf;
  try {
    auto recording = jfr::reader::Recording::fromBytes(std::span<const uint8_t>(data, size));
    view::RecordingDigest digest = view::digestRecording(recording, {});
    view::ViewOptions options;
    options.width = 80;
    for (const auto& v : view::allViews()) (void)v.render(digest, options);
    convert::ConvertOptions convertOptions;
    convert::Profile wallProfile = convert::loadTimeProfile(recording, {}, convert::TimeKind::kWall);
    convert::Profile lockProfile = convert::loadLockProfile(recording, {});
    for (const convert::Profile* profile :
         {&digest.profile, &digest.offCpu.profile, &wallProfile, &digest.allocation.profile, &lockProfile}) {
      for (convert::Format format :
           {convert::Format::kCollapsed, convert::Format::kHtml, convert::Format::kPprof, convert::Format::kOtlp}) {
        std::ostringstream out;
        convert::writeProfile(*profile, format, convertOptions, out);
      }
    }
    std::ostringstream threads;
    convertOptions.collapsed = {convert::Weight::kSamples, true, true};
    convert::writeProfile(digest.profile, convert::Format::kCollapsed, convertOptions, threads);
  } catch (const Error&) {
  }
  return 0;
}
