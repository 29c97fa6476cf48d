#include "gpu/bench_model.h"
#include "gpu/cudnn_graph.h"
#include "gpu/gpu_peaks.h"
#include "gpu/nvidia_api.h"

#include <gtest/gtest.h>

#include <cmath>

#include "app/render/bench_render.h"

namespace cudnnup {
namespace {

TEST(BenchInput, UniformOnTheTypesMantissaGridLikeTorchRand) {
  const std::pair<DataType, int> types[] = {{DataType::kBfloat16, 8}, {DataType::kHalf, 11}, {DataType::kFloat, 24}};
  for (auto [type, digits] : types) {
    auto v = bench_input(100000, 11, type);
    ASSERT_EQ(v.size(), 100000u);
    double step = std::ldexp(1.0, 1 - digits), sum = 0;
    int negative = 0, tiny = 0;
    for (float x : v) {
      ASSERT_GE(x, -1.0f);
      ASSERT_LT(x, 1.0f);
      double k = (static_cast<double>(x) + 1.0) / step;
      ASSERT_EQ(k, std::floor(k)) << x << " is not on the " << digits << "-bit grid";
      // Exactly representable in the type: encoding and decoding gives the value back.
      ASSERT_EQ(decode_tensor(encode_tensor({x}, type), type)[0], x) << data_type_name(type);
      sum += x;
      negative += x < 0;
      tiny += x != 0 && std::fabs(x) < step;  // finer than the grid: what full-precision noise has
    }
    EXPECT_NEAR(sum / v.size(), 0.0, 0.02) << data_type_name(type);
    EXPECT_NEAR(negative / 100000.0, 0.5, 0.02) << data_type_name(type);
    EXPECT_EQ(tiny, 0);
  }
  EXPECT_EQ(bench_input(10, 11, DataType::kHalf), bench_input(10, 11, DataType::kHalf));
  EXPECT_NE(bench_input(10, 11, DataType::kHalf), bench_input(10, 12, DataType::kHalf));
}

TEST(BenchShapes, DefaultsHoldTheIssueShapes) {
  auto shapes = default_bench_shapes();
  std::vector<std::string> names;
  for (const auto& s : shapes) names.push_back(s.shape.str());
  for (const char* want : {"N8 C3 64x64 K16 3x3 pad1", "N256 C64 56x56 K64 3x3 pad1", "N256 C256 14x14 K256 3x3 pad1",
                           "N128 C512 28x28 K512 3x3 pad1", "N256 C1024 14x14 K256 1x1"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  auto cases = bench_cases(shapes);
  EXPECT_EQ(cases.size(), shapes.size() * 3);
  EXPECT_EQ(cases[0].key(), "N8 C3 64x64 K16 3x3 pad1|bf16|NHWC");
}

TEST(BenchShapes, ParsesFileAndRejectsBadLines) {
  auto ok = parse_bench_shapes("# n c h w k r s pad stride name\n32 64 56 56 64 3 3 1 1 my layer\n\n8 3 64 64 16 3 3\n");
  ASSERT_TRUE(ok) << ok.error().message;
  ASSERT_EQ(ok->size(), 2u);
  EXPECT_EQ((*ok)[0].name, "my layer");
  EXPECT_EQ((*ok)[0].shape.pad_h, 1);
  EXPECT_EQ((*ok)[1].shape.pad_h, 0);
  auto bad = parse_bench_shapes("32 64 56 56 64 3\n");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 1"), std::string::npos);
  EXPECT_FALSE(parse_bench_shapes("1 1 2 2 1 5 5\n"));  // filter larger than the padded input
  EXPECT_FALSE(parse_bench_shapes("# nothing\n"));
  EXPECT_FALSE(parse_bench_shapes("8 3 x 64 16 3 3\n"));
}

TEST(BenchPeak, FromThePerSkuTableByExactNameThenPrefix) {
  const PeakTable& table = builtin_peak_table();
  ASSERT_GT(table.rows.size(), 20u) << "data/gpu_peaks.json did not parse";
  auto h200 = find_gpu_peak(table, "NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->sku, "H200 SXM");
  EXPECT_NEAR(h200->bf16, 989.4, 0.1);
  EXPECT_NEAR(h200->for_type(DataType::kFloat, true), 494.7, 0.1);
  EXPECT_NEAR(h200->for_type(DataType::kFloat, false), 67, 0.1);
  // The NVL part is not the SXM one, and GH200 is not an H200 (no substring matching).
  EXPECT_NEAR(find_gpu_peak(table, "NVIDIA H200 NVL")->fp16, 835.5, 0.1);
  EXPECT_EQ(find_gpu_peak(table, "NVIDIA GH200 480GB")->sku.find("GH200"), 0u);
  EXPECT_NEAR(find_gpu_peak(table, "NVIDIA H100 PCIe")->bf16, 756, 0.1);
  EXPECT_NEAR(find_gpu_peak(table, "NVIDIA H100 80GB HBM3")->bf16, 989.4, 0.1);
  // sm86: the datacenter and pro parts run FP16 with FP32 accumulate at twice the GeForce rate.
  EXPECT_NEAR(find_gpu_peak(table, "NVIDIA A40")->fp16, 149.7, 0.1);
  EXPECT_NEAR(find_gpu_peak(table, "NVIDIA RTX A6000")->fp16, 154.8, 0.1);
  EXPECT_NEAR(find_gpu_peak(table, "NVIDIA GeForce RTX 3090")->fp16, 71, 0.1);
  EXPECT_NEAR(find_gpu_peak(table, "Tesla V100-SXM2-32GB")->fp16, 125, 0.1);  // a prefix row
  EXPECT_FALSE(find_gpu_peak(table, "NVIDIA A100"));  // not a name the driver reports
  EXPECT_FALSE(find_gpu_peak(table, "Future GPU"));
  for (const auto& r : table.rows) EXPECT_EQ(r.rates.source.rfind("https://", 0), 0u) << r.match;
}

TEST(BenchPeak, ARateAbovePeakIsAnError) {
  BenchRow r;
  r.engine = 7;
  r.tflops = 1200;
  check_against_peak(r, 989.4);
  EXPECT_NE(r.error.find("above the GPU's peak"), std::string::npos) << r.error;
  BenchRow winograd;
  winograd.tflops = 1200;
  winograd.transform = true;
  check_against_peak(winograd, 989.4);
  EXPECT_TRUE(winograd.error.empty());
  EXPECT_NE(winograd.note.find("FFT/Winograd"), std::string::npos);
  BenchRow fine;
  fine.tflops = 700;
  check_against_peak(fine, 989.4);
  EXPECT_TRUE(fine.error.empty() && fine.note.empty());
  BenchRow unknown;
  unknown.tflops = 5000;
  check_against_peak(unknown, 0);  // a GPU the table does not list: nothing to check against
  EXPECT_TRUE(unknown.error.empty());
  EXPECT_FALSE(parse_peak_table(R"({"skus": [{"match": "X", "source": "internal notes"}]})"));
}

TEST(BenchCandidates, PyTorchsSourcesAndFilter) {
  auto pt = candidate_sources(CandidatePolicy::kPyTorch, 10);
  ASSERT_EQ(pt.size(), 2u);
  EXPECT_EQ(pt[0].heuristics_mode, nv::kHeurModeInstant);
  EXPECT_EQ(pt[1].heuristics_mode, nv::kHeurModeFallback);
  EXPECT_EQ(default_max_candidates(CandidatePolicy::kPyTorch), 10);
  EXPECT_EQ(candidate_sources(CandidatePolicy::kWide, 24).size(), 3u);
  EngineNotes down{{nv::kNumericalNoteDownConvertInputs}, {}};
  EngineNotes tensor{{nv::kNumericalNoteTensorCore}, {}};
  EXPECT_FALSE(pytorch_drops(down, DataType::kHalf, true).empty());  // always dropped
  EXPECT_TRUE(pytorch_drops(tensor, DataType::kFloat, true).empty());
  EXPECT_FALSE(pytorch_drops(tensor, DataType::kFloat, false).empty());  // allow_tf32 off
  EXPECT_TRUE(pytorch_drops(tensor, DataType::kHalf, false).empty());
}

TEST(BenchCheck, SampledReferenceEqualsTheFullOne) {
  ConvShape sh;
  sh.n = 2, sh.c = 3, sh.h = sh.w = 9, sh.k = 5, sh.r = sh.s = 3, sh.pad_h = sh.pad_w = 1, sh.stride_h = sh.stride_w = 2;
  auto x = bench_input(sh.x_count(), 1, DataType::kHalf), w = bench_input(sh.w_count(), 2, DataType::kHalf);
  auto at = sample_indices(sh.y_count(), 40);
  ASSERT_EQ(at.size(), 40u);
  for (size_t i = 1; i < at.size(); ++i) EXPECT_LT(at[i - 1], at[i]);
  EXPECT_LT(at.back(), sh.y_count());
  for (auto layout : {TensorLayout::kNchw, TensorLayout::kNhwc}) {
    Reference full = conv_forward_reference(sh, layout, x, w);
    Reference some = conv_forward_reference_at(sh, layout, x, w, at);
    for (size_t i = 0; i < at.size(); ++i) {
      EXPECT_DOUBLE_EQ(some.value[i], full.value[at[i]]) << at[i];
      EXPECT_DOUBLE_EQ(some.magnitude[i], full.magnitude[at[i]]) << at[i];
    }
  }
  EXPECT_EQ(sample_indices(5, 40).size(), 5u);
}

TEST(BenchCompare, MismatchesWithThePyTorchSideAreNamed) {
  PytorchSide same;
  same.torch = "2.11.0";
  same.cudnn_version = 91900;
  same.cudnn_library = "/venv/nvidia/cudnn/lib/libcudnn.so.9";
  same.allow_tf32 = true;
  same.benchmark_limit = 10;
  BenchSide ours{"/venv/nvidia/cudnn/lib", "9.19.0", true, CandidatePolicy::kPyTorch, 10};
  EXPECT_TRUE(comparison_mismatches(same, "/venv/nvidia/cudnn/lib", ours).empty());
  BenchSide other{"/usr/lib/x86_64-linux-gnu", "9.14.0", false, CandidatePolicy::kWide, 24};
  auto m = comparison_mismatches(same, "/venv/nvidia/cudnn/lib", other);
  ASSERT_EQ(m.size(), 4u);
  EXPECT_NE(m[0].find("/usr/lib/x86_64-linux-gnu"), std::string::npos);
  EXPECT_NE(m[1].find("9.14.0"), std::string::npos);
  EXPECT_NE(m[2].find("allow_tf32=True"), std::string::npos);
  EXPECT_NE(m[3].find("wider"), std::string::npos);
  PytorchSide mode_b = same;
  mode_b.heuristic_mode_b = true;
  mode_b.benchmark_limit = 0;
  EXPECT_EQ(comparison_mismatches(mode_b, "/venv/nvidia/cudnn/lib", ours).size(), 2u);
  PytorchSide unknown;
  EXPECT_EQ(comparison_mismatches(unknown, "", ours).size(), 2u);
}

TEST(BenchResults, AttachesPyTorchByKeyAndRenders) {
  auto cases = bench_cases(default_bench_shapes());
  std::vector<BenchRow> rows;
  for (const auto& c : cases) {
    BenchRow r;
    r.bench = c;
    r.ms = 1.0;
    r.tflops = c.shape.shape.forward_flops() / 1e-3 / 1e12;
    rows.push_back(r);
  }
  std::string pt = R"({"rows": [{"key": ")" + cases[1].key() + R"(", "ms": 1.25}]})";
  auto side = attach_pytorch_results(pt, rows);
  ASSERT_TRUE(side);
  EXPECT_FALSE(side->allow_tf32);  // the script's older output did not say
  EXPECT_FALSE(rows[0].pytorch_ms);
  ASSERT_TRUE(rows[1].ratio());
  EXPECT_DOUBLE_EQ(*rows[1].ratio(), 1.25);
  EXPECT_FALSE(attach_pytorch_results("[1,2]", rows));
  auto j = bench_row_to_json(rows[1], 989.4);
  EXPECT_DOUBLE_EQ(j["ratio_vs_pytorch"].get<double>(), 1.25);

  BenchHeader h;
  h.cudnn_version = "9.19.0";
  h.gpu_name = "GPU <test> & co";
  h.peak = *find_gpu_peak(builtin_peak_table(), "NVIDIA H200");
  h.compared = true;
  h.mismatches = {"PyTorch ran with allow_tf32=False, bench with --tf32 on"};
  std::string svg = render_bench_svg(h, rows);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("GPU &lt;test&gt; &amp; co"), std::string::npos);
  EXPECT_EQ(svg.find("<test>"), std::string::npos);
  size_t bars = 0;
  for (size_t pos = 0; (pos = svg.find("class=\"cudnnup\"", pos)) != std::string::npos; ++pos) ++bars;
  EXPECT_EQ(bars, rows.size());
  size_t pytorch_bars = 0;
  for (size_t pos = 0; (pos = svg.find("class=\"pytorch\"", pos)) != std::string::npos; ++pos) ++pytorch_bars;
  EXPECT_EQ(pytorch_bars, 1u);
  std::string text = render_bench_text(h, rows);
  EXPECT_NE(text.find("1.25x"), std::string::npos);
  EXPECT_NE(text.find("NOT like for like"), std::string::npos) << text;
  EXPECT_NE(text.find("H200 SXM"), std::string::npos) << text;
}

}  // namespace
}  // namespace cudnnup
