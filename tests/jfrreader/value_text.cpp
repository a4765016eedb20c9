#include "tests/jfrreader/value_text.h"

#include <sstream>

#include "formats/jfr/reader/metadata.h"

namespace jfrbpf::jfr::testing {

using reader::RecordedObject;
using reader::Value;

namespace {
void write(std::ostream& out, const Value& value, int depth);

void writeObject(std::ostream& out, const RecordedObject& object, int depth) {
  out << "{";
  for (size_t i = 0; i < object.fieldCount(); ++i) {
    out << (i ? ", " : "") << object.type().fields[i].name << "=";
    write(out, object.field(i), depth - 1);
  }
  out << "}";
}

void write(std::ostream& out, const Value& value, int depth) {
  if (depth < 0) {
    out << "...";
    return;
  }
  switch (value.kind()) {
    case Value::Kind::kNull: out << "null"; break;
    case Value::Kind::kBool: out << (value.asBool() ? "true" : "false"); break;
    case Value::Kind::kLong: out << value.asLong(); break;
    case Value::Kind::kDouble: out << value.asDouble(); break;
    case Value::Kind::kString: out << '"' << value.asString() << '"'; break;
    case Value::Kind::kArray: {
      out << "[";
      const char* separator = "";
      for (const Value& item : value.asArray()) {
        out << separator;
        write(out, item, depth - 1);
        separator = ", ";
      }
      out << "]";
      break;
    }
    case Value::Kind::kObject: writeObject(out, *value.asObject(), depth); break;
  }
}
}  // namespace

std::string valueText(const Value& value, int maxDepth) {
  std::ostringstream out;
  write(out, value, maxDepth);
  return out.str();
}

std::string objectText(const RecordedObject& object, int maxDepth) {
  std::ostringstream out;
  writeObject(out, object, maxDepth);
  return out.str();
}

}  // namespace jfrbpf::jfr::testing
