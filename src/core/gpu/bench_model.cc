#include "gpu/bench_model.h"

#include <cmath>
#include <sstream>

#include "base/json_reader.h"
#include "base/numbers.h"

namespace cudnnup {

namespace {

BenchShape make_shape(std::string name, int n, int c, int hw, int k, int rs, int pad, int stride = 1) {
  BenchShape b;
  b.name = std::move(name);
  b.shape.n = n;
  b.shape.c = c;
  b.shape.h = b.shape.w = hw;
  b.shape.k = k;
  b.shape.r = b.shape.s = rs;
  b.shape.pad_h = b.shape.pad_w = pad;
  b.shape.stride_h = b.shape.stride_w = stride;
  return b;
}

}  // namespace

std::vector<BenchShape> default_bench_shapes() {
  return {
      make_shape("classic verification conv", 8, 3, 64, 16, 3, 1),
      make_shape("resnet50 conv2_x 3x3", 256, 64, 56, 64, 3, 1),
      make_shape("resnet50 conv4_x 3x3", 256, 256, 14, 256, 3, 1),
      make_shape("wide 3x3 at 28x28", 128, 512, 28, 512, 3, 1),
      make_shape("resnet50 conv4_x 1x1 reduce", 256, 1024, 14, 256, 1, 0),
  };
}

Result<std::vector<BenchShape>> parse_bench_shapes(const std::string& text) {
  std::vector<BenchShape> out;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::vector<std::string> words;
    std::string word;
    while (fields >> word) words.push_back(word);
    if (words.empty()) continue;
    auto bad = [&](const std::string& why) {
      return make_error(ErrorCode::kUsage, "shapes file line " + std::to_string(number) + ": " + why +
                                               " (expected `N C H W K R S [pad] [stride] [name]`)");
    };
    if (words.size() < 7) return bad("too few numbers");
    int v[9] = {0, 0, 0, 0, 0, 0, 0, 0, 1};
    size_t used_numbers = 0;
    for (size_t i = 0; i < words.size() && i < 9; ++i) {
      auto value = checked_int(words[i], INT_MIN, INT_MAX);
      if (!value) break;
      v[i] = *value;
      used_numbers = i + 1;
    }
    if (used_numbers < 7) return bad("'" + words[used_numbers] + "' is not a number");
    BenchShape b;
    b.shape.n = v[0];
    b.shape.c = v[1];
    b.shape.h = v[2];
    b.shape.w = v[3];
    b.shape.k = v[4];
    b.shape.r = v[5];
    b.shape.s = v[6];
    b.shape.pad_h = b.shape.pad_w = used_numbers > 7 ? v[7] : 0;
    b.shape.stride_h = b.shape.stride_w = used_numbers > 8 ? v[8] : 1;
    for (size_t i = used_numbers; i < words.size(); ++i) b.name += (b.name.empty() ? "" : " ") + words[i];
    if (b.name.empty()) b.name = b.shape.str();
    if (!b.shape.valid()) return bad("the sizes do not make a valid convolution");
    out.push_back(b);
  }
  if (out.empty()) return make_error(ErrorCode::kUsage, "the shapes file lists no shapes");
  return out;
}

std::string BenchCase::key() const {
  return shape.shape.str() + "|" + data_type_name(type) + "|" + layout_name(layout);
}

std::vector<float> bench_input(size_t count, uint64_t seed, DataType type) {
  const int digits = type == DataType::kBfloat16 ? 8 : type == DataType::kHalf ? 11 : 24;
  std::vector<float> out(count);
  uint64_t state = seed;
  for (auto& v : out) {
    uint64_t z = splitmix64_next(state);
    float unit = std::ldexp(static_cast<float>(z >> (64 - digits)), -digits);  // k / 2^digits, exact
    v = unit * 2.0f - 1.0f;                                                     // exact in the type
  }
  return out;
}

std::vector<BenchCase> bench_cases(const std::vector<BenchShape>& shapes) {
  std::vector<BenchCase> out;
  for (const auto& s : shapes) {
    out.push_back({s, DataType::kBfloat16, TensorLayout::kNhwc});
    out.push_back({s, DataType::kHalf, TensorLayout::kNhwc});
    out.push_back({s, DataType::kFloat, TensorLayout::kNchw});
  }
  return out;
}

PeakRates gpu_peak(const std::string& name, int cc_major, int cc_minor, int sm_count, int clock_khz) {
  PeakRates p;
  // NVIDIA datasheets, dense (no sparsity), SXM parts.
  struct Known {
    const char* name_part;
    double half, tf32, fp32;
  };
  static const Known kKnown[] = {
      {"H200", 989.4, 494.7, 66.9},
      {"H100 80GB HBM3", 989.4, 494.7, 66.9},
      {"H100 SXM", 989.4, 494.7, 66.9},
      {"A100", 312.0, 156.0, 19.5},
  };
  for (const auto& k : kKnown) {
    if (name.find(k.name_part) != std::string::npos) {
      p.half = k.half;
      p.tf32 = k.tf32;
      p.fp32 = k.fp32;
      p.source = std::string("datasheet ") + k.name_part + " (dense)";
      return p;
    }
  }
  // FLOP per clock per SM (dense): fp16/bf16 tensor, tf32 tensor, fp32 FMA.
  double half = 0, tf32 = 0, fp32 = 0;
  int cc = cc_major * 10 + cc_minor;
  if (cc == 80) half = 2048, tf32 = 1024, fp32 = 128;
  else if (cc == 86 || cc == 87) half = 512, tf32 = 256, fp32 = 256;
  else if (cc == 89) half = 1024, tf32 = 512, fp32 = 256;
  else if (cc == 90) half = 4096, tf32 = 2048, fp32 = 256;
  if (half == 0 || sm_count <= 0 || clock_khz <= 0) {
    p.source = "unknown for compute capability " + std::to_string(cc_major) + "." + std::to_string(cc_minor);
    return p;
  }
  double scale = static_cast<double>(sm_count) * clock_khz * 1e3 / 1e12;
  p.half = half * scale;
  p.tf32 = tf32 * scale;
  p.fp32 = fp32 * scale;
  p.source = "computed: " + std::to_string(sm_count) + " SMs x " + std::to_string(clock_khz / 1000) +
             " MHz x " + std::to_string(static_cast<int>(half)) + " FLOP/clock/SM";
  return p;
}

std::optional<double> BenchRow::ratio() const {
  if (!pytorch_ms || ms <= 0) return std::nullopt;
  return *pytorch_ms / ms;
}

nlohmann::json bench_row_to_json(const BenchRow& r, double peak_tflops) {
  nlohmann::json j{{"name", r.bench.shape.name},
                   {"shape", r.bench.shape.shape.str()},
                   {"type", data_type_name(r.bench.type)},
                   {"layout", layout_name(r.bench.layout)},
                   {"key", r.bench.key()},
                   {"flops", r.bench.shape.shape.forward_flops()},
                   {"ms", r.ms},
                   {"tflops", r.tflops},
                   {"peak_tflops", peak_tflops},
                   {"engine", r.engine},
                   {"candidates", r.candidates}};
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.tried.empty()) j["tried"] = r.tried;
  if (r.pytorch_ms) {
    j["pytorch_ms"] = *r.pytorch_ms;
    j["pytorch_tflops"] = r.bench.shape.shape.forward_flops() / (*r.pytorch_ms * 1e-3) / 1e12;
  }
  if (auto q = r.ratio()) j["ratio_vs_pytorch"] = *q;
  return j;
}

Status attach_pytorch_results(const std::string& json_text, std::vector<BenchRow>& rows) {
  JsonReader reader("the JSON of bench/pytorch_conv.py");
  JsonValue j = reader.parse_object(json_text);
  if (reader.ok() && !j.has("rows")) j.fail("rows", "is missing");
  for (const auto& row : j.array("rows")) {
    std::string key = row.string("key");
    double ms = row.number("ms", 0.0);
    for (auto& r : rows) {
      if (r.bench.key() == key && ms > 0) r.pytorch_ms = ms;
    }
  }
  return reader.status();
}

}  // namespace cudnnup
