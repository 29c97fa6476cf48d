// The glibc model's search on the in-memory filesystem: LD_LIBRARY_PATH entries as ld.so reads
// them, files of the right name that are not libraries (as open_verify judges them), the
// hardware-capability subdirectories, dlopen's all-or-nothing mapping and the lookup scopes.
// The real ld.so is the judge of the same rules in tests/disk/loader_differential_test.cc.
#include "loader/glibc_resolver.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "loader/which.h"
#include "support/elf_builder.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::build_elf;
using testing::ElfSpec;
using testing::MemoryFileSystem;

class GlibcSearch : public ::testing::Test {
 protected:
  LoaderSystem system(std::vector<std::string> llp = {}) {
    LoaderSystem sys;
    sys.ld_library_path = std::move(llp);
    sys.default_dirs = {"/default"};
    sys.cwd = "/work";
    return sys;
  }
  void library(const std::string& path, ElfSpec spec = {}) {
    if (spec.soname.empty()) spec.soname = std::string(path.substr(path.rfind('/') + 1));
    fs.add_file(path, build_elf(spec));
  }
  Resolution find(const LoaderSystem& sys, const std::string& name) {
    LoaderSimulation sim(fs, sys);
    ElfInfo program;
    program.is_64bit = true;
    program.machine = 62;
    sim.start_synthetic("prog", program, "/work");
    return sim.locate(name, 0, "dlopen");
  }
  MemoryFileSystem fs;
};

TEST_F(GlibcSearch, SplitsLdLibraryPathOnColonsAndSemicolonsKeepingEmptyEntries) {
  EXPECT_EQ(split_ld_library_path(":/a"), (std::vector<std::string>{"", "/a"}));
  EXPECT_EQ(split_ld_library_path("/a::/b"), (std::vector<std::string>{"/a", "", "/b"}));
  EXPECT_EQ(split_ld_library_path("/a:"), (std::vector<std::string>{"/a", ""}));
  EXPECT_EQ(split_ld_library_path("/a;/b"), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_TRUE(split_ld_library_path("").empty()) << "an empty variable is no list at all";
}

TEST_F(GlibcSearch, EmptyAndRelativeEntriesAreTheWorkingDirectory) {
  library("/work/libx.so.1");
  library("/work/lib/libx.so.1");
  library("/a/libx.so.1");
  for (const std::string value : {":/a", "/nowhere::/a", "/nowhere:"}) {
    Resolution r = find(system(split_ld_library_path(value)), "libx.so.1");
    ASSERT_TRUE(r.found) << value;
    EXPECT_EQ(r.path, "/work/libx.so.1") << value;
    EXPECT_EQ(r.rule, SearchRule::kLdLibraryPath);
    auto winner = std::find_if(r.candidates.begin(), r.candidates.end(), [&](const Candidate& c) { return c.path == r.path; });
    ASSERT_NE(winner, r.candidates.end());
    EXPECT_EQ(winner->entry, "") << "the entry the user wrote";
  }
  Resolution relative = find(system({"lib", "/a"}), "libx.so.1");
  EXPECT_EQ(relative.path, "/work/lib/libx.so.1");
  EXPECT_EQ(relative.candidates.front().entry, "lib");
  EXPECT_EQ(relative.candidates.front().entry_index, 0);
}

TEST_F(GlibcSearch, ADirectoryOfTheNameStopsTheSearchWithAnError) {
  fs.add_dir("/a/libx.so.1");
  library("/b/libx.so.1");
  Resolution r = find(system({"/a", "/b"}), "libx.so.1");
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.failed_at, "/a/libx.so.1");
  ASSERT_FALSE(r.candidates.empty());
  EXPECT_EQ(r.candidates.front().problem, LoadProblem::kDirectory);
}

TEST_F(GlibcSearch, AFifoIsAHazardAndIsNeverOpened) {
  fs.add_fifo("/a/libx.so.1");
  library("/b/libx.so.1");
  Resolution r = find(system({"/a", "/b"}), "libx.so.1");
  EXPECT_FALSE(r.found) << "a process searching there hangs in open()";
  EXPECT_EQ(r.candidates.front().problem, LoadProblem::kFifo);
  ASSERT_EQ(r.hazards.size(), 1u);
  EXPECT_NE(r.hazards[0].find("/a/libx.so.1"), std::string::npos);
  // Behind the winner it is never reached, but still worth a word.
  Resolution behind = find(system({"/b", "/a"}), "libx.so.1");
  EXPECT_TRUE(behind.found);
  EXPECT_EQ(behind.hazards.size(), 1u);
  EXPECT_EQ(fs.fifo_reads, 0) << "the model must never open a FIFO";
}

TEST_F(GlibcSearch, AnUnreadableCandidateIsSkippedAsGlibcDoes) {
  library("/a/libx.so.1");
  fs.set_unreadable("/a/libx.so.1");
  library("/b/libx.so.1");
  Resolution r = find(system({"/a", "/b"}), "libx.so.1");
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.path, "/b/libx.so.1");
  EXPECT_EQ(r.candidates.front().problem, LoadProblem::kUnreadable);
}

TEST_F(GlibcSearch, AHeaderOnlyElfMakesTheLoadFail) {
  fs.add_file("/a/libx.so.1", build_elf({}).substr(0, 64));
  library("/b/libx.so.1");
  Resolution r = find(system({"/a", "/b"}), "libx.so.1");
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.failed_at, "/a/libx.so.1");
  EXPECT_EQ(r.candidates.front().problem, LoadProblem::kTruncated);
  // Another ELF class is passed over instead.
  ElfSpec elf32;
  elf32.is_64bit = false;
  elf32.machine = 3;
  library("/c/libx.so.1", elf32);
  Resolution skipped = find(system({"/c", "/b"}), "libx.so.1");
  ASSERT_TRUE(skipped.found);
  EXPECT_EQ(skipped.path, "/b/libx.so.1");
  EXPECT_EQ(skipped.candidates.front().problem, LoadProblem::kWrongClass);
}

TEST_F(GlibcSearch, HardwareCapabilitySubdirectoriesComeFirstInEachDirectory) {
  library("/a/libx.so.1");
  library("/a/tls/libx.so.1");
  library("/a/glibc-hwcaps/x86-64-v3/libx.so.1");
  LoaderSystem sys = system({"/a"});
  EXPECT_EQ(find(sys, "libx.so.1").path, "/a/libx.so.1") << "a glibc that searches none";
  sys.legacy_hwcaps = {"tls/haswell", "tls"};
  EXPECT_EQ(find(sys, "libx.so.1").path, "/a/tls/libx.so.1") << "glibc < 2.37";
  sys.hwcaps = {"x86-64-v4", "x86-64-v3"};
  EXPECT_EQ(find(sys, "libx.so.1").path, "/a/glibc-hwcaps/x86-64-v3/libx.so.1") << "glibc 2.33 - 2.36";
}

TEST_F(GlibcSearch, DlopenFailsWholeWhenADependencyIsMissing) {
  ElfSpec ops;
  ops.soname = "libcudnn_ops.so.9";
  ops.needed = {"libcudnn_graph.so.9"};
  ops.runpath = "$ORIGIN";
  library("/a/libcudnn_ops.so.9", ops);
  LoaderSimulation sim(fs, system({"/a"}));
  ElfInfo program;
  program.is_64bit = true;
  program.machine = 62;
  sim.start_synthetic("prog", program, "/work");
  Resolution r = sim.dlopen("libcudnn_ops.so.9", 0);
  EXPECT_FALSE(r.found);
  EXPECT_NE(r.error.find("libcudnn_graph.so.9"), std::string::npos);
  EXPECT_EQ(sim.find_loaded("libcudnn_ops.so.9"), -1) << "glibc unmaps what the failed dlopen mapped";
}

TEST_F(GlibcSearch, SymbolReferencesBindInTheGlobalScopeFirst) {
  ElfSpec graph;
  graph.soname = "libcudnn_graph.so.9";
  library("/right/libcudnn_graph.so.9", graph);
  library("/foreign/libcudnn_graph.so.9", graph);
  ElfSpec ops;
  ops.soname = "libcudnn_ops.so.9";
  ops.needed = {"libcudnn_graph.so.9"};
  ops.runpath = "$ORIGIN";
  library("/right/libcudnn_ops.so.9", ops);
  LoaderSystem sys = system();
  sys.ld_preload = {"/foreign/libcudnn_graph.so.9"};
  LoaderSimulation sim(fs, sys);
  ElfInfo program;
  program.is_64bit = true;
  program.machine = 62;
  sim.start_synthetic("prog", program, "/work");
  Resolution r = sim.dlopen("/right/libcudnn_ops.so.9", 0);
  ASSERT_TRUE(r.found) << r.error;
  int ops_object = sim.find_mapped_file("/right/libcudnn_ops.so.9");
  ASSERT_GE(ops_object, 0);
  ASSERT_EQ(sim.objects()[ops_object].needed.size(), 1u);
  int bound = sim.objects()[ops_object].needed[0];
  ASSERT_GE(bound, 0);
  EXPECT_EQ(sim.objects()[bound].path, "/foreign/libcudnn_graph.so.9") << "the SONAME is already loaded";
  int provider = sim.symbol_provider(ops_object, [](const MappedObject& o) { return o.elf.soname == "libcudnn_graph.so.9"; });
  EXPECT_EQ(provider, bound);
}

}  // namespace
}  // namespace cudnnup
