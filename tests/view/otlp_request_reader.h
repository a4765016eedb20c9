#pragma once
// Test helper: an OTLP profiles request as jfrbpf writes it (formats/convert/otlp_writer.h), decoded with the
// classes generated from formats/otlp/proto, and read back into the figures the tests compare with the Profile
// model's: events and values per attribute value, stacks as function names.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "opentelemetry/proto/collector/profiles/v1development/profiles_service.pb.h"

namespace jfrbpf::test {

namespace otlp_pb = opentelemetry::proto;
using OtlpRequest = otlp_pb::collector::profiles::v1development::ExportProfilesServiceRequest;
using OtlpProfile = otlp_pb::profiles::v1development::Profile;
using OtlpSample = otlp_pb::profiles::v1development::Sample;

// What samples add up to: their events (timestamps) and the sum of their values.
struct OtlpTotals {
  uint64_t events = 0;
  int64_t values = 0;
  bool operator==(const OtlpTotals&) const = default;
};

class OtlpRequestReader {
 public:
  // Fails the test when `path` does not decode.
  explicit OtlpRequestReader(const std::string& path);

  const OtlpRequest& request() const { return request_; }
  // The profiles of the one resource's one scope, in order.
  const google::protobuf::RepeatedPtrField<OtlpProfile>& profiles() const;
  const OtlpProfile& profile(int index) const { return profiles().Get(index); }
  std::string sampleType(const OtlpProfile& profile) const;  // "cpu/nanoseconds"
  const std::string& string(int32_t index) const { return request_.dictionary().string_table(index); }

  // A sample's attribute `key` as text (an integer in decimal); "" when it has none.
  std::string attribute(const OtlpSample& sample, std::string_view key) const;
  // A resource attribute's value as text, "int:" before an integer's; "" when the resource has none.
  std::string resourceAttribute(std::string_view key) const;
  // The functions of a stack, leaf first, the inlined ones of a location before the one they sit in.
  std::vector<std::string> frames(int32_t stack) const;

  OtlpTotals totals(const OtlpProfile& profile) const;
  // Per value of the attribute `key` ("" for samples without it).
  std::map<std::string, OtlpTotals> totalsBy(const OtlpProfile& profile, std::string_view key) const;
  std::set<std::vector<std::string>> stacks(const OtlpProfile& profile) const;

 private:
  OtlpRequest request_;
};

}  // namespace jfrbpf::test
