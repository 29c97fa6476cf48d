#include "gpu/gpu_peaks.h"

#include <nlohmann/json.hpp>

extern const char embedded_gpu_peaks_json[];
extern const unsigned long long embedded_gpu_peaks_json_size;

namespace cudnnup {

double PeakRates::for_type(DataType type, bool tensor_cores) const {
  switch (type) {
    case DataType::kFloat: return tensor_cores ? tf32 : fp32;
    case DataType::kHalf: return fp16;
    case DataType::kBfloat16: return bf16;
  }
  return 0;
}

Result<PeakTable> parse_peak_table(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("skus") || !j["skus"].is_array()) {
    return make_error(ErrorCode::kCorrupt, "the GPU peak table is not a JSON object with \"skus\"");
  }
  PeakTable table;
  table.data_version = j.value("data_version", "");
  auto number = [](const nlohmann::json& row, const char* key) {
    return row.contains(key) && row[key].is_number() ? row[key].get<double>() : 0.0;
  };
  for (const auto& row : j["skus"]) {
    if (!row.is_object() || !row.contains("match") || !row["match"].is_string()) {
      return make_error(ErrorCode::kCorrupt, "a GPU peak row without \"match\"");
    }
    PeakTable::Row r;
    r.match = row["match"].get<std::string>();
    r.prefix = row.value("match_kind", "exact") == "prefix";
    r.rates.fp32 = number(row, "fp32");
    r.rates.tf32 = number(row, "tf32");
    r.rates.fp16 = number(row, "fp16");
    r.rates.bf16 = number(row, "bf16");
    r.rates.sku = row.value("sku", r.match);
    r.rates.source = row.value("source", "");
    r.rates.derivation = row.value("derivation", "");
    r.rates.checked = row.value("checked", false);
    if (r.rates.source.rfind("https://", 0) != 0) {
      return make_error(ErrorCode::kCorrupt, "GPU peak row '" + r.match + "' cites no https source");
    }
    table.rows.push_back(std::move(r));
  }
  return table;
}

const PeakTable& builtin_peak_table() {
  static const PeakTable table = [] {
    auto parsed = parse_peak_table(std::string(embedded_gpu_peaks_json, embedded_gpu_peaks_json_size));
    return parsed ? *parsed : PeakTable{};  // the unit tests parse the same file and fail loudly
  }();
  return table;
}

std::optional<PeakRates> find_gpu_peak(const PeakTable& table, const std::string& name) {
  for (const auto& r : table.rows) {
    if (!r.prefix && r.match == name) return r.rates;
  }
  const PeakTable::Row* best = nullptr;
  for (const auto& r : table.rows) {
    if (r.prefix && name.rfind(r.match, 0) == 0 && (!best || r.match.size() > best->match.size())) best = &r;
  }
  if (best) return best->rates;
  return std::nullopt;
}

}  // namespace cudnnup
