#include "formats/jfr/writer/metadata_element.h"

#include <string_view>
#include <unordered_map>

namespace jfrbpf::jfr {
namespace {

class StringTable {
 public:
  uint64_t indexOf(const std::string& s) {
    auto [it, inserted] = indexes_.try_emplace(s, strings_.size());
    if (inserted) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint64_t> indexes_;
  std::vector<std::string> strings_;
};

void collectStrings(const MetadataElement& element, StringTable& table) {
  table.indexOf(element.name);
  for (const auto& [key, value] : element.attributes) {
    table.indexOf(key);
    table.indexOf(value);
  }
  for (const auto& child : element.children) collectStrings(child, table);
}

void writeElement(const MetadataElement& element, StringTable& table, ByteBuffer& out) {
  out.putVarint(table.indexOf(element.name));
  out.putVarint(element.attributes.size());
  for (const auto& [key, value] : element.attributes) {
    out.putVarint(table.indexOf(key));
    out.putVarint(table.indexOf(value));
  }
  out.putVarint(element.children.size());
  for (const auto& child : element.children) writeElement(child, table, out);
}

}  // namespace

ByteBuffer serializeMetadataBody(const MetadataElement& root) {
  StringTable table;
  collectStrings(root, table);
  ByteBuffer out;
  out.putVarint(table.strings().size());
  // Metadata strings must be literal (encoding 3): readers have no string pool while reading metadata, and
  // an empty attribute value (a setting's defaultValue "") is written as "" rather than null.
  for (const auto& s : table.strings()) out.putString(s);
  writeElement(root, table, out);
  return out;
}

}  // namespace jfrbpf::jfr
