#include "facts/rules.h"

#include <nlohmann/json.hpp>

extern const char embedded_rules_json[];
extern const unsigned long long embedded_rules_json_size;

namespace cudnnup {
namespace {

using nlohmann::json;

Version version_field(const json& row, const char* key) {
  if (!row.contains(key) || !row[key].is_string()) return {};
  auto v = Version::parse(row[key].get<std::string>());
  return v ? *v : Version{};
}

std::string string_field(const json& row, const char* key) {
  return row.contains(key) && row[key].is_string() ? row[key].get<std::string>() : std::string();
}

}  // namespace

std::vector<std::string> Rules::expected_components(const Version& cudnn) const {
  std::vector<std::string> out;
  for (const ExpectedLibrary* lib : known_components(cudnn.major())) {
    if (lib->optional) continue;
    if (!lib->since.known() || cudnn >= lib->since) out.push_back(lib->component);
  }
  return out;
}

std::vector<const ExpectedLibrary*> Rules::known_components(int major) const {
  std::vector<const ExpectedLibrary*> out;
  for (const auto& [m, libs] : expected_libraries) {
    if (m != major) continue;
    for (const auto& lib : libs) out.push_back(&lib);
  }
  return out;
}

const DriverMinimum* Rules::driver_minimum_for(const Version& cuda) const {
  for (const auto& row : driver_minimums) {
    if (row.cuda.major() == cuda.major() && row.cuda.minor() == cuda.minor()) return &row;
  }
  return nullptr;
}

const MajorDriverMinimum* Rules::major_driver_minimum_for(int cuda_major) const {
  for (const auto& row : major_driver_minimums) {
    if (row.cuda_major == cuda_major) return &row;
  }
  return nullptr;
}

const CudaVariantRange* Rules::cuda_variant_for(int cuda_major) const {
  for (const auto& row : cuda_variants) {
    if (row.cuda_major == cuda_major) return &row;
  }
  return nullptr;
}

const ComputeCapabilityRule* Rules::compute_capability_rule_for(const Version& cudnn, int cuda_major) const {
  // The strictest matching rule wins (9.12+ cuda13 and 9.11+ both say 7.5; order does not matter).
  const ComputeCapabilityRule* best = nullptr;
  for (const auto& row : compute_capability) {
    if (row.cuda_major != 0 && row.cuda_major != cuda_major) continue;
    if (cudnn < row.cudnn_first) continue;
    if (row.cudnn_last.known() && cudnn.truncated(3) > row.cudnn_last) continue;
    if (!best || row.min_cc > best->min_cc) best = &row;
  }
  return best;
}

Result<Rules> parse_rules(std::string_view json_text, const std::string& origin) {
  json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return make_error(ErrorCode::kCorrupt, origin + " is not valid JSON", origin);
  }
  Rules rules;
  rules.schema = doc.value("schema", 0);
  if (rules.schema != 1) {
    return make_error(ErrorCode::kUnsupported,
                      origin + " has rules schema " + std::to_string(rules.schema) + "; this cudnnup reads schema 1",
                      origin);
  }
  rules.data_version = doc.value("data_version", std::string("unknown"));
  try {
    for (const auto& row : doc.value("driver_minimums", json::array())) {
      rules.driver_minimums.push_back({version_field(row, "cuda"), version_field(row, "linux"),
                                       version_field(row, "windows"), string_field(row, "source")});
    }
    for (const auto& row : doc.value("driver_minimums_minor_compat", json::array())) {
      rules.major_driver_minimums.push_back({row.value("cuda_major", 0), version_field(row, "linux"),
                                             version_field(row, "windows"), string_field(row, "source")});
    }
    for (const auto& row : doc.value("cudnn_cuda_variants", json::array())) {
      rules.cuda_variants.push_back({row.value("cuda_major", 0), version_field(row, "first"),
                                     version_field(row, "last"), string_field(row, "source")});
    }
    for (const auto& row : doc.value("cudnn_min_compute_capability", json::array())) {
      rules.compute_capability.push_back({version_field(row, "cudnn_first"), version_field(row, "cudnn_last"),
                                          row.value("cuda_major", 0), version_field(row, "min_cc"),
                                          string_field(row, "source")});
    }
    for (const auto& row : doc.value("known_bad_releases", json::array())) {
      rules.known_bad.push_back({version_field(row, "cudnn"), string_field(row, "platform"),
                                 string_field(row, "problem"), string_field(row, "fix"), string_field(row, "source")});
    }
    const json expected = doc.value("expected_libraries", json::object());
    for (const auto& [major, libs] : expected.items()) {
      std::vector<ExpectedLibrary> list;
      for (const auto& lib : libs) {
        list.push_back({string_field(lib, "component"), version_field(lib, "since"), lib.value("optional", false),
                        string_field(lib, "loaded_by"), string_field(lib, "source")});
      }
      rules.expected_libraries.emplace_back(std::stoi(major), std::move(list));
    }
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kCorrupt, origin + " has a malformed row: " + e.what(), origin);
  }
  return rules;
}

const Rules& builtin_rules() {
  static const Rules rules = [] {
    auto parsed = parse_rules(std::string_view(embedded_rules_json, embedded_rules_json_size), "built-in rules");
    // The embedded file is checked by the tests; a failure here is a build defect.
    return parsed.ok() ? parsed.value() : Rules{};
  }();
  return rules;
}

}  // namespace cudnnup
