#include "gpu/bench_model.h"

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

TEST(BenchPeak, DatasheetOrComputed) {
  auto h200 = gpu_peak("NVIDIA H200", 9, 0, 132, 1980000);
  EXPECT_NEAR(h200.half, 989.4, 0.1);
  EXPECT_NEAR(h200.tf32, 494.7, 0.1);
  auto computed = gpu_peak("Some Hopper", 9, 0, 100, 1000000);
  EXPECT_NEAR(computed.half, 100 * 1e9 * 4096 / 1e12, 1e-9);
  EXPECT_NE(computed.source.find("computed"), std::string::npos);
  EXPECT_EQ(gpu_peak("Future GPU", 12, 0, 100, 1000000).half, 0);
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
  ASSERT_TRUE(attach_pytorch_results(pt, rows));
  EXPECT_FALSE(rows[0].pytorch_ms);
  ASSERT_TRUE(rows[1].ratio());
  EXPECT_DOUBLE_EQ(*rows[1].ratio(), 1.25);
  EXPECT_FALSE(attach_pytorch_results("[1,2]", rows));
  auto j = bench_row_to_json(rows[1], 989.4);
  EXPECT_DOUBLE_EQ(j["ratio_vs_pytorch"].get<double>(), 1.25);

  BenchHeader h;
  h.cudnn_version = "9.19.0";
  h.gpu_name = "GPU <test> & co";
  h.peak = gpu_peak("NVIDIA H200", 9, 0, 132, 1980000);
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
}

}  // namespace
}  // namespace cudnnup
