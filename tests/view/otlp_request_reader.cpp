#include "tests/view/otlp_request_reader.h"

#include <gtest/gtest.h>

#include "tests/view/view_test_support.h"

namespace jfrbpf::test {

OtlpRequestReader::OtlpRequestReader(const std::string& path) {
  EXPECT_TRUE(request_.ParseFromString(readFile(path))) << path << " is no ExportProfilesServiceRequest";
}

const google::protobuf::RepeatedPtrField<OtlpProfile>& OtlpRequestReader::profiles() const {
  static const google::protobuf::RepeatedPtrField<OtlpProfile> kNone;
  if (request_.resource_profiles_size() != 1 || request_.resource_profiles(0).scope_profiles_size() != 1) {
    ADD_FAILURE() << "expected one resource with one scope";
    return kNone;
  }
  return request_.resource_profiles(0).scope_profiles(0).profiles();
}

std::string OtlpRequestReader::sampleType(const OtlpProfile& profile) const {
  return string(profile.sample_type().type_strindex()) + "/" + string(profile.sample_type().unit_strindex());
}

std::string OtlpRequestReader::attribute(const OtlpSample& sample, std::string_view key) const {
  for (int32_t index : sample.attribute_indices()) {
    const auto& attribute = request_.dictionary().attribute_table(index);
    if (string(attribute.key_strindex()) != key) continue;
    const auto& value = attribute.value();
    return value.has_int_value() ? std::to_string(value.int_value()) : value.string_value();
  }
  return "";
}

std::string OtlpRequestReader::resourceAttribute(std::string_view key) const {
  if (request_.resource_profiles_size() == 0) return "";
  for (const auto& attribute : request_.resource_profiles(0).resource().attributes()) {
    if (attribute.key() != key) continue;
    const auto& value = attribute.value();
    return value.has_int_value() ? "int:" + std::to_string(value.int_value()) : value.string_value();
  }
  return "";
}

std::vector<std::string> OtlpRequestReader::frames(int32_t stack) const {
  const auto& dictionary = request_.dictionary();
  std::vector<std::string> names;
  for (int32_t location : dictionary.stack_table(stack).location_indices()) {
    for (const auto& line : dictionary.location_table(location).lines()) {
      names.push_back(string(dictionary.function_table(line.function_index()).name_strindex()));
    }
  }
  return names;
}

OtlpTotals OtlpRequestReader::totals(const OtlpProfile& profile) const { return totalsBy(profile, "")[""]; }

std::map<std::string, OtlpTotals> OtlpRequestReader::totalsBy(const OtlpProfile& profile, std::string_view key) const {
  std::map<std::string, OtlpTotals> totals;
  for (const OtlpSample& sample : profile.samples()) {
    EXPECT_EQ(sample.values_size(), sample.timestamps_unix_nano_size()) << "a value for each event";
    OtlpTotals& total = totals[key.empty() ? "" : attribute(sample, key)];
    total.events += static_cast<uint64_t>(sample.timestamps_unix_nano_size());
    for (int64_t value : sample.values()) total.values += value;
  }
  return totals;
}

std::set<std::vector<std::string>> OtlpRequestReader::stacks(const OtlpProfile& profile) const {
  std::set<std::vector<std::string>> stacks;
  for (const OtlpSample& sample : profile.samples()) stacks.insert(frames(sample.stack_index()));
  return stacks;
}

}  // namespace jfrbpf::test
