// Pure parsers: cuDNN file names, version headers, rules data, ELF headers, paths.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "facts/cudnn_files.h"
#include "binfmt/elf.h"
#include "base/paths.h"
#include "facts/rules.h"
#include "support/fixture_libs.h"

namespace cudnnup {
namespace {

TEST(CudnnLibraryName, LinuxForms) {
  auto a = parse_cudnn_library_name("libcudnn_ops.so.9.14.0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->component, "ops");
  EXPECT_EQ(a->major, 9);
  EXPECT_EQ(a->version.str(), "9.14.0");
  auto b = parse_cudnn_library_name("libcudnn.so.9");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->component, "cudnn");
  EXPECT_FALSE(b->version.known());
  auto c = parse_cudnn_library_name("libcudnn_cnn_infer.so.8");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->component, "cnn_infer");
  EXPECT_TRUE(parse_cudnn_library_name("libcudnn.so")->dev_link);
  EXPECT_FALSE(parse_cudnn_library_name("libcudnn_static.a"));
  EXPECT_FALSE(parse_cudnn_library_name("libcudnn.so.9.bak~"));
  EXPECT_FALSE(parse_cudnn_library_name("libcudnnfoo.so.9"));
  EXPECT_FALSE(parse_cudnn_library_name("libcublas.so.12"));
}

TEST(CudnnLibraryName, WindowsForms) {
  auto a = parse_cudnn_library_name("cudnn_engines_precompiled64_9.dll");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->component, "engines_precompiled");
  EXPECT_EQ(a->major, 9);
  EXPECT_TRUE(a->windows);
  auto b = parse_cudnn_library_name("CUDNN64_8.DLL");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->component, "cudnn");
  EXPECT_EQ(b->major, 8);
  EXPECT_FALSE(parse_cudnn_library_name("cudnn.lib"));
  EXPECT_FALSE(parse_cudnn_library_name("cudnn64_.dll"));
  EXPECT_EQ(cudnn_library_file_name("ops_infer", 8, true), "cudnn_ops_infer64_8.dll");
  EXPECT_EQ(cudnn_library_file_name("graph", 9, false), "libcudnn_graph.so.9");
}

TEST(CudnnHeader, ParsesPaddedMacrosOfEveryEra) {
  auto v9 = parse_cudnn_header_version(
      "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n"
      "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n"
      "#define CUDNN_MAX_SM_MAJOR_NUMBER 12\n#define CUDNN_MAX_SM_MINOR_NUMBER 0\n");
  ASSERT_TRUE(v9);
  EXPECT_EQ(v9->version.str(), "9.19.0");
  EXPECT_EQ(v9->max_sm_major, 12);
  auto v7 = parse_cudnn_header_version("#define CUDNN_MAJOR      7\n#  define CUDNN_MINOR\t6\n#define CUDNN_PATCHLEVEL 5\n");
  ASSERT_TRUE(v7);
  EXPECT_EQ(v7->version.str(), "7.6.5");
  EXPECT_FALSE(parse_cudnn_header_version("#include \"cudnn_version.h\"\n"));
}

TEST(Rules, BuiltinRulesParseAndAnswer) {
  const Rules& r = builtin_rules();
  ASSERT_EQ(r.schema, 1);
  EXPECT_FALSE(r.driver_minimums.empty());
  for (const auto& row : r.driver_minimums) EXPECT_FALSE(row.source.empty()) << row.cuda.str();
  for (const auto& row : r.cuda_variants) EXPECT_FALSE(row.source.empty());
  for (const auto& row : r.compute_capability) EXPECT_FALSE(row.source.empty());
  for (const auto& row : r.known_bad) EXPECT_FALSE(row.source.empty());
  auto c919 = r.expected_components(*Version::parse("9.19.0"));
  EXPECT_EQ(c919.size(), 8u);
  auto c921 = r.expected_components(*Version::parse("9.21.0"));
  EXPECT_EQ(c921.size(), 9u);
  EXPECT_EQ(r.expected_components(*Version::parse("8.9.7")).size(), 7u);
  EXPECT_EQ(r.driver_minimum_for(*Version::parse("13.0.2"))->linux_driver.str(), "580.65.6");
  EXPECT_EQ(r.major_driver_minimum_for(12)->windows_driver.str(), "527.41");
  EXPECT_EQ(r.compute_capability_rule_for(*Version::parse("9.19.0"), 13)->min_cc.str(), "7.5");
  EXPECT_EQ(r.compute_capability_rule_for(*Version::parse("9.10.2"), 12)->min_cc.str(), "5.0");
  EXPECT_EQ(r.cuda_variant_for(11)->last.str(), "9.10.2");
}

TEST(Rules, RejectsWrongSchemaAndBadJson) {
  EXPECT_EQ(parse_rules("{\"schema\": 2}", "x.json").error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(parse_rules("[1,2", "x.json").error().code, ErrorCode::kCorrupt);
  EXPECT_EQ(parse_rules("{\"schema\":1,\"expected_libraries\":{\"x\":[]}}", "x.json").error().code, ErrorCode::kCorrupt);
}

RangeReader string_reader(const std::string& bytes) {
  return [bytes](uint64_t off, size_t n) -> Result<std::string> {
    if (off >= bytes.size()) return std::string();
    return bytes.substr(off, n);
  };
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Elf, ReadsSonameOfAFixtureLibrary) {
  std::string bytes = slurp(testing::fixture_lib("v9.19.0", "libcudnn_graph.so.9"));
  if (bytes.empty()) GTEST_SKIP() << "fixture libraries are built only on Linux";
  auto info = parse_elf(string_reader(bytes), bytes.size());
  ASSERT_TRUE(info) << info.error().message;
  EXPECT_EQ(info->soname, "libcudnn_graph.so.9");
  EXPECT_TRUE(info->is_64bit);
  EXPECT_TRUE(info->problems.empty());
  EXPECT_FALSE(info->has_runpath_tag);
}

TEST(Elf, TruncatedAndGarbageFiles) {
  std::string bytes = slurp(testing::fixture_lib("v9.19.0", "libcudnn_graph.so.9"));
  if (bytes.empty()) GTEST_SKIP();
  std::string cut = bytes.substr(0, bytes.size() / 2);
  auto info = parse_elf(string_reader(cut), cut.size());
  ASSERT_TRUE(info);
  ASSERT_FALSE(info->problems.empty());
  EXPECT_NE(info->problems[0].find("truncated"), std::string::npos);
  EXPECT_EQ(parse_elf(string_reader("MZ\x90\x00"), 4).error().code, ErrorCode::kCorrupt);
  EXPECT_NE(parse_elf(string_reader(""), 0).error().message.find("empty"), std::string::npos);
  // A header that claims absurd program headers must not make us read gigabytes.
  std::string evil = bytes.substr(0, 64);
  evil[56] = '\xff';
  evil[57] = '\xff';
  auto e = parse_elf(string_reader(evil), evil.size());
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->problems.empty());
}

TEST(Paths, NormalizeJoinParentOnBothStyles) {
  EXPECT_EQ(paths::normalize("/a//b/./c/../d/"), "/a/b/d");
  EXPECT_EQ(paths::normalize("C:\\Program Files\\NVIDIA\\..\\CUDA"), "C:/Program Files/CUDA");
  EXPECT_EQ(paths::parent("/usr/lib"), "/usr");
  EXPECT_EQ(paths::parent("/usr"), "/");
  EXPECT_EQ(paths::parent("C:/CUDA"), "C:/");
  EXPECT_EQ(paths::join("/a", "b"), "/a/b");
  EXPECT_EQ(paths::join("/a", "/b"), "/b");
  EXPECT_EQ(paths::basename("/x/libcudnn.so.9"), "libcudnn.so.9");
  EXPECT_TRUE(paths::is_absolute("D:\\x"));
  EXPECT_FALSE(paths::is_absolute("lib"));
  auto parts = paths::split_list("/a::/b", ':');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1], "");
  EXPECT_EQ(paths::to_native("C:/a/b", true), "C:\\a\\b");
}

}  // namespace
}  // namespace cudnnup
