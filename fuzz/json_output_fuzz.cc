// Text from the machine in a JSON document cudnnup prints (--json) or writes: paths, log lines,
// archive entry names, member names, in any encoding. The input is split at NUL bytes into a
// path, a log line, a member name with its value, and a list; the document is dumped the way the
// commands print it. Oracle: the output is JSON that a strict parser accepts (so valid UTF-8), and
// the typed reader gives back every original string (through the "<name>_bytes" escape).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "fuzz_input.h"

#if __has_include("base/json_text.h")
#include "base/json_reader.h"
#include "base/json_text.h"
#define CUDNNUP_FUZZ_JSON_TEXT 1
#endif

namespace {

std::vector<std::string> pieces_of(std::string_view bytes) {
  std::vector<std::string> out;
  size_t start = 0;
  while (out.size() < 16) {
    size_t nul = bytes.find('\0', start);
    out.emplace_back(bytes.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  while (out.size() < 4) out.emplace_back();
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> p = pieces_of(cudnnup::fuzz::bytes_of(data, size));
  std::vector<std::string> list(p.begin() + 4, p.end());
  nlohmann::json doc = {{"schema", "cudnnup.fuzz/1"}, {"path", p[0]}, {"searched", list},
                        {"lines", nlohmann::json::array({{{"text", p[1]}, {"line", 1}}})}};
  doc["env"][p[2]] = p[3];
#ifdef CUDNNUP_FUZZ_JSON_TEXT
  std::string out = cudnnup::dump_json(doc, 2);
#else
  // Before the output path existed every command printed with nlohmann's own dump(2).
  std::string out = doc.dump(2);
#endif
  auto back = nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  if (back.is_discarded()) cudnnup::fuzz::violation("the output is not valid (UTF-8) JSON");
#ifdef CUDNNUP_FUZZ_JSON_TEXT
  cudnnup::JsonReader reader("fuzz.json");
  cudnnup::JsonValue v = reader.read_object(back);
  if (v.string("path") != p[0]) cudnnup::fuzz::violation("a path does not survive the output");
  auto lines = v.array("lines");
  if (lines.size() != 1 || lines[0].string("text") != p[1]) cudnnup::fuzz::violation("a log line does not survive");
  if (v.strings("searched") != list) cudnnup::fuzz::violation("a list of paths does not survive");
  if (!reader.ok()) cudnnup::fuzz::violation("the reader refuses the output: " + reader.status().error().message);
#endif
  return 0;
}
