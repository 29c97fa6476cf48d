#include "child/mapped_files.h"

#include <gtest/gtest.h>

#include "child/loader_environment.h"

namespace cudnnup {
namespace {

TEST(MappedFiles, AttributesCudnnFilesToCopies) {
  std::vector<std::string> mapped = {"/usr/lib/x86_64-linux-gnu/libc.so.6",
                                     "/venv/nvidia/cudnn/lib/libcudnn.so.9",
                                     "/venv/nvidia/cudnn/lib/libcudnn_graph.so.9",
                                     "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.14.0",
                                     "/opt/other/libcudnn_cnn.so.9"};
  auto files = attribute_cudnn_files(mapped, {"/usr/lib/x86_64-linux-gnu", "/venv/nvidia/cudnn/lib/"}, false);
  ASSERT_EQ(files.size(), 4u);  // libc is not cuDNN
  EXPECT_EQ(files[0].copy, 1);
  EXPECT_EQ(files[1].copy, 1);
  EXPECT_EQ(files[2].copy, 0);
  EXPECT_EQ(files[3].copy, -1);
  EXPECT_EQ(files[3].directory, "/opt/other");

  auto foreign = foreign_cudnn_files(mapped, "/venv/nvidia/cudnn/lib", false);
  ASSERT_EQ(foreign.size(), 2u);
  EXPECT_EQ(directories_of(foreign), (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu", "/opt/other"}));
  EXPECT_TRUE(foreign_cudnn_files({"/venv/nvidia/cudnn/lib/libcudnn.so.9"}, "/venv/nvidia/cudnn/lib", false).empty());
}

TEST(MappedFiles, WindowsPathsCompareWithoutCase) {
  std::vector<std::string> mapped = {"C:/CUDNN/bin/cudnn64_9.dll", "C:/Windows/System32/cudnn_ops64_9.dll",
                                     "C:/Windows/System32/kernel32.dll"};
  auto foreign = foreign_cudnn_files(mapped, "c:/cudnn/bin", true);
  ASSERT_EQ(foreign.size(), 1u);
  EXPECT_EQ(foreign[0].path, "C:/Windows/System32/cudnn_ops64_9.dll");
}

TEST(ChildLoaderEnvironment, TheCopysDirectoryAndNothingPreloaded) {
  Environment env;
  env.vars = {{"LD_LIBRARY_PATH", "/other/cudnn:/usr/local/cuda/lib64"}, {"LD_PRELOAD", "/other/libcudnn_graph.so.9"},
              {"LD_AUDIT", "/x/audit.so"}, {"PATH", "/usr/bin"}, {"HOME", "/home/u"}};
  auto out = child_loader_environment(env, "/venv/nvidia/cudnn/lib");
  EXPECT_EQ(out["LD_LIBRARY_PATH"], "/venv/nvidia/cudnn/lib");
  EXPECT_EQ(out.count("LD_PRELOAD"), 0u);
  EXPECT_EQ(out.count("LD_AUDIT"), 0u);
  EXPECT_EQ(out["PATH"], "/usr/bin");
  EXPECT_EQ(out["HOME"], "/home/u");

  Environment win;
  win.os = OsKind::kWindows;
  win.vars = {{"PATH", "C:\\Windows\\system32;C:\\other\\cudnn\\bin"}};
  auto w = child_loader_environment(win, "C:/cudnn/bin");
  EXPECT_EQ(w["PATH"], "C:\\cudnn\\bin;C:\\Windows\\system32;C:\\other\\cudnn\\bin");
}

}  // namespace
}  // namespace cudnnup
