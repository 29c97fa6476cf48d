#include "facts/rules.h"

#include "base/json_reader.h"
#include "base/numbers.h"

extern const char embedded_rules_json[];
extern const unsigned long long embedded_rules_json_size;

namespace cudnnup {
namespace {

// A version field: absent gives unknown; a string that is not a version is an error naming it.
Version version_field(const JsonValue& row, const char* key) {
  std::string text = row.string(key);
  if (text.empty()) return {};
  auto v = Version::parse(text);
  if (!v) row.fail(key, "must be a version such as 9.1.0, not '" + text + "'");
  return v.value_or(Version{});
}

}  // namespace

bool ZlibwapiReleases::covers(const Version& cudnn) const {
  return first.known() && cudnn.known() && cudnn >= first && (!linked_in_from.known() || cudnn < linked_in_from);
}

std::string ZlibwapiReleases::describe() const {
  if (!first.known()) return "no cuDNN release (the rules name none)";
  return "cuDNN " + first.str() + (linked_in_from.known() ? " up to (not including) " + linked_in_from.str() : " and newer");
}

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

const WindowsFrameworkSupport* Rules::windows_support_of(const std::string& framework) const {
  for (const auto& row : frameworks_on_windows) {
    if (row.framework == framework) return &row;
  }
  return nullptr;
}

const TensorflowWindowsBuild* Rules::tensorflow_windows_build_for(const Version& tensorflow) const {
  Version mm = tensorflow.truncated(2);
  for (const auto& row : tensorflow_windows_gpu_builds) {
    if (mm >= row.first.truncated(2) && mm <= row.last.truncated(2)) return &row;
  }
  return nullptr;
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

const FirstCudaForArchitecture* Rules::first_cuda_for(const Version& cc) const {
  const FirstCudaForArchitecture* best = nullptr;
  for (const auto& row : first_cuda_for_cc) {
    if (row.cc.major() != cc.major() || cc.truncated(2) < row.cc.truncated(2)) continue;
    if (!best || best->cc < row.cc) best = &row;
  }
  return best;
}

Result<Rules> parse_rules(std::string_view json_text, const std::string& origin) {
  JsonReader reader(origin);
  JsonValue doc = reader.parse_object(json_text);
  if (!reader.ok()) return reader.status().error();
  Rules rules;
  rules.schema = static_cast<int>(doc.integer("schema", 0, 0, 1000));
  if (reader.ok() && rules.schema != 1) {
    return make_error(ErrorCode::kUnsupported,
                      origin + " has rules schema " + std::to_string(rules.schema) + "; this cudnnup reads schema 1",
                      origin);
  }
  constexpr long long kMaxMajor = 1000;
  rules.data_version = doc.string("data_version", "unknown");
  for (const auto& row : doc.array("driver_minimums")) {
    rules.driver_minimums.push_back({version_field(row, "cuda"), version_field(row, "linux"), version_field(row, "windows"),
                                     row.string("source")});
  }
  for (const auto& row : doc.array("driver_minimums_minor_compat")) {
    rules.major_driver_minimums.push_back({static_cast<int>(row.integer("cuda_major", 0, 0, kMaxMajor)),
                                           version_field(row, "linux"), version_field(row, "windows"), row.string("source")});
  }
  for (const auto& row : doc.array("cudnn_cuda_variants")) {
    rules.cuda_variants.push_back({static_cast<int>(row.integer("cuda_major", 0, 0, kMaxMajor)), version_field(row, "first"),
                                   version_field(row, "last"), row.string("source")});
  }
  for (const auto& row : doc.array("cudnn_min_compute_capability")) {
    rules.compute_capability.push_back({version_field(row, "cudnn_first"), version_field(row, "cudnn_last"),
                                        static_cast<int>(row.integer("cuda_major", 0, 0, kMaxMajor)),
                                        version_field(row, "min_cc"), row.string("source")});
  }
  for (const auto& row : doc.array("first_cuda_for_compute_capability")) {
    rules.first_cuda_for_cc.push_back({version_field(row, "cc"), version_field(row, "cuda"), row.string("source")});
  }
  for (const auto& row : doc.array("known_bad_releases")) {
    std::vector<FixStep> steps;
    for (const auto& s : row.array("fix_steps")) steps.push_back(fix_step_from_json(s));
    rules.known_bad.push_back({version_field(row, "cudnn"), row.string("platform"), row.string("problem"), row.string("fix"),
                               std::move(steps), row.string("source")});
  }
  for (const auto& [major, libs] : doc.object("expected_libraries").members()) {
    auto m = checked_int(major, 1, static_cast<int>(kMaxMajor));
    if (!m) {
      reader.fail(libs.path(), "must be named by a cuDNN major (\"9\"), not '" + major + "'");
      break;
    }
    std::vector<ExpectedLibrary> list;
    for (const auto& lib : libs.elements()) {
      list.push_back({lib.required_string("component"), version_field(lib, "since"), lib.boolean("optional", false),
                      lib.string("loaded_by"), lib.string("source")});
    }
    rules.expected_libraries.emplace_back(*m, std::move(list));
  }
  for (const auto& row : doc.array("frameworks_on_windows")) {
    rules.frameworks_on_windows.push_back({row.required_string("framework"), version_field(row, "last_gpu_release"),
                                           row.string("gpu"), row.string("source")});
  }
  for (const auto& row : doc.array("tensorflow_windows_gpu_builds")) {
    rules.tensorflow_windows_gpu_builds.push_back(
        {version_field(row, "first"), version_field(row, "last"), version_field(row, "cudnn"), version_field(row, "cuda")});
  }
  rules.tensorflow_windows_gpu_builds_source = doc.string("tensorflow_windows_gpu_builds_source");
  JsonValue zlib = doc.object("windows_zlibwapi");
  rules.windows_zlibwapi = {version_field(zlib, "first"), version_field(zlib, "linked_in_from"), zlib.string("source")};
  if (!reader.ok()) return reader.status().error();
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

std::string builtin_rules_version() {
  return top_level_string(std::string_view(embedded_rules_json, embedded_rules_json_size), "data_version");
}

}  // namespace cudnnup
