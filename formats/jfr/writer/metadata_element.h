#pragma once
// The metadata event's element tree (root → metadata → class → field/setting/annotation, root → region)
// and its wire form: a string table followed by the tree, every name and attribute as a table index.
#include <string>
#include <utility>
#include <vector>

#include "formats/jfr/writer/byte_buffer.h"

namespace jfrbpf::jfr {

struct MetadataElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<MetadataElement> children;

  explicit MetadataElement(std::string elementName) : name(std::move(elementName)) {}
  MetadataElement& attribute(std::string key, std::string value) {
    attributes.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  MetadataElement& child(MetadataElement element) {
    children.push_back(std::move(element));
    return *this;
  }
};

// Everything of the metadata event after its id: string count, strings (UTF-8), the root element.
ByteBuffer serializeMetadataBody(const MetadataElement& root);

}  // namespace jfrbpf::jfr
