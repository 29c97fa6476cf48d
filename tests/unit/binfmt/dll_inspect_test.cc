#include "binfmt/dll_inspect.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

using testing::build_pe_dll;
using testing::MemoryFileSystem;

TEST(DllInspect, NamesEachProblem) {
  MemoryFileSystem fs;
  fs.add_file("C:/a/empty.dll", "");
  fs.add_file("C:/a/x86.dll", build_pe_dll(kPeMachineX86, {}));
  fs.add_file("C:/a/lfs.dll", "version https://git-lfs.github.com/spec/v1\n");
  std::string cut = build_pe_dll(kPeMachineX64, {"a.dll"});
  fs.add_file("C:/a/cut.dll", cut.substr(0, cut.size() - 100));
  EXPECT_EQ(inspect_dll(fs, "C:/a/empty.dll").problems.at(0).rfind("empty file (0 bytes)", 0), 0u);
  EXPECT_NE(inspect_dll(fs, "C:/a/x86.dll").problems.at(0).find("built for x86, not x64"), std::string::npos);
  EXPECT_EQ(inspect_dll(fs, "C:/a/lfs.dll").problems.at(0), "not a PE file (no MZ header)");
  EXPECT_EQ(inspect_dll(fs, "C:/a/cut.dll").problems.at(0).rfind("truncated: section .idata", 0), 0u);
  EXPECT_EQ(inspect_dll(fs, "C:/a/missing.dll").problems.size(), 1u);
}

TEST(DllInspect, HealthyDllHasImportsAndNoProblems) {
  MemoryFileSystem fs;
  fs.add_file("C:/a/good.dll", build_pe_dll(kPeMachineX64, {"cudnn_graph64_9.dll"}));
  auto good = inspect_dll(fs, "C:/a/good.dll");
  EXPECT_TRUE(good.problems.empty());
  EXPECT_EQ(good.imports, std::vector<std::string>{"cudnn_graph64_9.dll"});
  EXPECT_FALSE(good.file_version) << "the built image has no VERSIONINFO";
}

}  // namespace
}  // namespace cudnnup
