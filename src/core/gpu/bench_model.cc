#include "gpu/bench_model.h"

#include "gpu/nvidia_api.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
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

Result<std::vector<BenchShape>> load_bench_shapes(const FileSystem& fs, const std::string& spec) {
  if (spec == "default") return default_bench_shapes();
  auto text = fs.read_file(spec, 1 << 20);
  if (!text) return make_error(ErrorCode::kNotFound, "cannot read the shapes file " + spec + ": " + text.error().message, spec);
  return parse_bench_shapes(*text);
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

const char* candidate_policy_name(CandidatePolicy policy) {
  return policy == CandidatePolicy::kPyTorch ? "pytorch" : "wide";
}

int default_max_candidates(CandidatePolicy policy) { return policy == CandidatePolicy::kPyTorch ? 10 : 24; }

std::vector<CandidateSource> candidate_sources(CandidatePolicy policy, int max_candidates) {
  if (policy == CandidatePolicy::kPyTorch) {
    // get_generator_sources(..., CUDNN_HEUR_MODE_INSTANT, true, true): INSTANT, then the fallback
    // list, concatenated; time_sorted_plan stops at benchmark_limit plans.
    return {{nv::kHeurModeInstant, "heuristics instant", max_candidates},
            {nv::kHeurModeFallback, "fallback", max_candidates}};
  }
  // An equal share per mode: mode A alone can fill the list with knob variants of one engine,
  // while the best engine may come from mode B or the fallback list.
  const int per_mode = std::max(4, max_candidates / 3);
  return {{nv::kHeurModeA, "heuristics A", per_mode},
          {nv::kHeurModeB, "heuristics B", per_mode},
          {nv::kHeurModeFallback, "fallback", per_mode}};
}

std::vector<size_t> sample_indices(size_t count, size_t samples) {
  std::vector<size_t> out;
  if (count == 0) return out;
  if (count <= samples) {
    for (size_t i = 0; i < count; ++i) out.push_back(i);
    return out;
  }
  // One index per equal slice, at a pseudo-random place inside it: every region of the output
  // (every batch element, every channel block) is looked at.
  uint64_t state = 0x5a3b1e5ull + count;
  const double slice = static_cast<double>(count) / static_cast<double>(samples);
  for (size_t i = 0; i < samples; ++i) {
    size_t begin = static_cast<size_t>(slice * static_cast<double>(i));
    size_t end = std::max(begin + 1, static_cast<size_t>(slice * static_cast<double>(i + 1)));
    out.push_back(begin + splitmix64_next(state) % (end - begin));
  }
  return out;
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
                   {"engine_notes", r.engine_notes},
                   {"tensor_cores", r.tensor_cores},
                   {"candidates", r.candidates}};
  if (!r.check.empty()) j["check"] = r.check;
  if (!r.note.empty()) j["note"] = r.note;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.tried.empty()) j["tried"] = r.tried;
  if (r.pytorch_ms) {
    j["pytorch_ms"] = *r.pytorch_ms;
    j["pytorch_tflops"] = r.bench.shape.shape.forward_flops() / (*r.pytorch_ms * 1e-3) / 1e12;
  }
  if (auto q = r.ratio()) j["ratio_vs_pytorch"] = *q;
  return j;
}

void check_against_peak(BenchRow& row, double peak) {
  if (peak <= 0 || row.tflops <= peak || !row.error.empty()) return;
  char text[320];
  if (row.transform) {
    std::snprintf(text, sizeof text,
                  "%.1f TFLOP/s counts the multiply-adds of a direct convolution; this FFT/Winograd engine does "
                  "fewer, so its rate can pass the GPU's peak (%.1f)",
                  row.tflops, peak);
    row.note = text;
    return;
  }
  std::snprintf(text, sizeof text,
                "%.1f TFLOP/s is above the GPU's peak of %.1f for this type: engine %lld cannot have done the "
                "work (or the peak table is wrong for this GPU); not reported as a measurement",
                row.tflops, peak, static_cast<long long>(row.engine));
  row.error = text;
}

Result<PytorchSide> attach_pytorch_results(const std::string& json_text, std::vector<BenchRow>& rows) {
  // Read with types checked: the file is the user's, and any field may be anything.
  JsonReader reader("the JSON of bench/pytorch_conv.py");
  JsonValue j = reader.parse_object(json_text);
  if (reader.ok() && !j.has("rows")) j.fail("rows", "is missing (expected the output of bench/pytorch_conv.py)");
  for (const auto& row : j.array("rows")) {
    std::string key = row.string("key");
    double ms = row.number("ms", 0.0);
    for (auto& r : rows) {
      if (r.bench.key() == key && ms > 0) r.pytorch_ms = ms;
    }
  }
  PytorchSide side;
  side.torch = j.string("torch");
  side.cudnn_version = j.integer("cudnn", 0, 0, LLONG_MAX);
  side.cudnn_library = j.string("cudnn_library");
  if (j.has("allow_tf32")) side.allow_tf32 = j.boolean("allow_tf32", false);
  if (j.has("benchmark_limit")) side.benchmark_limit = static_cast<int>(j.integer("benchmark_limit", 0, 0, INT_MAX));
  side.heuristic_mode_b = j.boolean("heuristic_mode_b", false);
  if (!reader.ok()) return reader.status().error();
  return side;
}
std::vector<std::string> comparison_mismatches(const PytorchSide& pt, const std::string& their_dir, const BenchSide& ours) {
  std::vector<std::string> out;
  if (pt.cudnn_library.empty()) {
    out.push_back("the PyTorch results do not say which cuDNN library their process loaded");
  } else if (their_dir != ours.lib_dir) {
    out.push_back("PyTorch loaded cuDNN from " + their_dir + ", bench measured " + ours.lib_dir);
  }
  if (pt.cudnn_version > 0) {
    Version theirs = decode_cudnn_version_number(pt.cudnn_version);
    if (theirs.str() != ours.version) out.push_back("PyTorch ran cuDNN " + theirs.str() + ", bench " + ours.version);
  }
  if (!pt.allow_tf32) {
    out.push_back("the PyTorch results do not say whether TF32 was allowed");
  } else if (*pt.allow_tf32 != ours.allow_tf32) {
    out.push_back(std::string("PyTorch ran with allow_tf32=") + (*pt.allow_tf32 ? "True" : "False") + ", bench with --tf32 " +
                  (ours.allow_tf32 ? "on" : "off"));
  }
  if (ours.policy != CandidatePolicy::kPyTorch) {
    out.push_back("bench searched wider than PyTorch (--candidates wide: heuristics A, B and fallback, no filter)");
  } else {
    if (pt.heuristic_mode_b) out.push_back("PyTorch used heuristics mode B (TORCH_CUDNN_USE_HEURISTIC_MODE_B), bench INSTANT");
    if (pt.benchmark_limit && *pt.benchmark_limit != ours.max_candidates) {
      out.push_back("PyTorch timed up to " + (*pt.benchmark_limit ? std::to_string(*pt.benchmark_limit) : std::string("all")) +
                    " engines (benchmark_limit), bench " + std::to_string(ours.max_candidates));
    }
  }
  return out;
}

}  // namespace cudnnup
