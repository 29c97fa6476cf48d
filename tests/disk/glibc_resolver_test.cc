// The glibc loader simulation against fixture trees. Each test builds an isolated machine: a
// synthetic ld.so.cache and default directories inside a temp dir, so the host's own cuDNN
// cannot leak in. (which_truth_test.cc checks the same rules against the real ld.so.)
// Linux loader fixtures (tests/fixtures/loader.cmake) are built only off Windows.
#ifdef CUDNNUP_FIXTURE_DIR
#include "loader/glibc_resolver.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <filesystem>

#include "loader/cudnn_load_model.h"
#include "loader/which.h"
#include "platform/real_filesystem.h"
#include "support/fixture_libs.h"
#include "support/ld_cache_writer.h"
#include "support/loader_fixtures.h"

namespace cudnnup {
namespace {

using testing::copy_file;
using testing::loader_fixture;
using testing::make_loading_copy;
using testing::TempDir;
using testing::write_text;

class GlibcResolver : public ::testing::Test {
 protected:
  void SetUp() override { fs_ = make_real_filesystem(); }

  // A loader system confined to the temp dir. The fixture libraries are real programs and
  // libraries with DT_NEEDED libc.so.6 (which needs ld-linux-*.so.N), as on every machine: the
  // last default directory holds links to this process's own libc and ld.so, and nothing else
  // of the host's library directories (which may hold a cuDNN of their own).
  LoaderSystem isolated(const std::vector<std::string>& llp = {},
                        const std::vector<testing::CacheRecord>& cache = {}) {
    LoaderSystem sys;
    sys.ld_library_path = llp;
    sys.default_dirs = {tmp_ / "default", host_libc_dir()};
    auto parsed = parse_ld_so_cache(testing::make_ld_cache(cache, testing::CacheLayout::kNew));
    EXPECT_TRUE(parsed);
    sys.cache = std::make_shared<const LdCache>(*parsed);
    sys.cwd = tmp_.path();
    return sys;
  }

  // tmp_/host-libc: links named libc.so.6 and ld-linux-*.so.N to the files this test process
  // has mapped under those names.
  std::string host_libc_dir() {
    std::string dir = tmp_ / "host-libc";
    if (std::filesystem::is_directory(dir)) return dir;
    testing::make_dirs(dir);
    void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    struct link_map* map = nullptr;
    EXPECT_TRUE(libc && dlinfo(libc, RTLD_DI_LINKMAP, &map) == 0 && map) << "cannot find this process's libc.so.6";
    if (!map) return dir;
    while (map->l_prev) map = map->l_prev;
    bool have_libc = false;
    for (; map; map = map->l_next) {
      if (!map->l_name || map->l_name[0] != '/') continue;
      std::string base = std::filesystem::path(map->l_name).filename().string();
      if (base == "libc.so.6" || base.rfind("ld-linux", 0) == 0) {
        have_libc |= base == "libc.so.6";
        if (!std::filesystem::exists(dir + "/" + base)) testing::make_symlink(map->l_name, dir + "/" + base);
      }
    }
    EXPECT_TRUE(have_libc) << "this process's link map has no libc.so.6";
    dlclose(libc);
    return dir;
  }

  static ElfInfo program(std::vector<std::string> needed) {
    ElfInfo e;
    e.is_64bit = true;
    e.machine = 62;
    e.needed = std::move(needed);
    return e;
  }

  static const Candidate* candidate(const Resolution& r, const std::string& path) {
    for (const auto& c : r.candidates) {
      if (c.path == path) return &c;
    }
    return nullptr;
  }

  std::unique_ptr<FileSystem> fs_;
  TempDir tmp_;
};

TEST_F(GlibcResolver, ExpandsDynamicStringTokens) {
  EXPECT_EQ(expand_dynamic_string_tokens("$ORIGIN/../lib:${ORIGIN}/x", "/a/b", "lib64", "x86_64"), "/a/b/../lib:/a/b/x");
  EXPECT_EQ(expand_dynamic_string_tokens("/opt/$LIB/${PLATFORM}", "/a", "lib/x86_64-linux-gnu", "x86_64"),
            "/opt/lib/x86_64-linux-gnu/x86_64");
  EXPECT_EQ(expand_dynamic_string_tokens("$ORIGINAL/x", "/a", "lib", "p"), "$ORIGINAL/x");
}

TEST_F(GlibcResolver, RpathBeatsLdLibraryPathAndSubLibrariesComeFromTheOtherCopy) {
  copy_file(loader_fixture("bin/probe_rpath"), tmp_ / "app/bin/probe");
  make_loading_copy("9.19.0", tmp_ / "app/rp");
  make_loading_copy("9.14.0", tmp_ / "old/lib");
  LoaderSimulation sim(*fs_, isolated({tmp_ / "old/lib"}));
  ASSERT_TRUE(sim.start_executable(tmp_ / "app/bin/probe"));
  auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
  ASSERT_TRUE(w.resolution.found) << w.resolution.error;
  EXPECT_EQ(w.resolution.rule, SearchRule::kRpath);
  EXPECT_EQ(w.resolution.path, tmp_ / "app/bin/../rp/libcudnn.so.9");  // $ORIGIN is textual
  const Candidate* loser = candidate(w.resolution, tmp_ / "old/lib/libcudnn.so.9");
  ASSERT_NE(loser, nullptr);
  EXPECT_TRUE(loser->exists);
  EXPECT_NE(loser->outcome.find("loses: DT_RPATH"), std::string::npos);
  // The shim has DT_RUNPATH $ORIGIN, so its own dlopen of libcudnn_graph.so.9 takes
  // LD_LIBRARY_PATH first: the old copy's graph library. The versioned names come first.
  ASSERT_TRUE(w.cudnn);
  ASSERT_TRUE(w.cudnn->shim_version);
  EXPECT_EQ(w.cudnn->shim_version->str(), "9.19.0");
  ASSERT_FALSE(w.cudnn->sub_libraries.empty());
  const CudnnSubLibrary& graph = w.cudnn->sub_libraries.front();
  EXPECT_EQ(graph.component, "graph");
  EXPECT_EQ(graph.names_tried, (std::vector<std::string>{"libcudnn_graph.so.9.19.0", "libcudnn_graph.so.9.19",
                                                        "libcudnn_graph.so.9"}));
  EXPECT_EQ(graph.resolution.path, tmp_ / "old/lib/libcudnn_graph.so.9");
  EXPECT_EQ(graph.resolution.rule, SearchRule::kLdLibraryPath);
  EXPECT_TRUE(graph.from_other_copy);
  EXPECT_TRUE(w.cudnn->mixed);
}

TEST_F(GlibcResolver, LdLibraryPathBeatsRunpath) {
  copy_file(loader_fixture("bin/probe_runpath"), tmp_ / "app/bin/probe");
  make_loading_copy("9.19.0", tmp_ / "app/rp");
  make_loading_copy("9.14.0", tmp_ / "old/lib");
  LoaderSimulation sim(*fs_, isolated({tmp_ / "old/lib"}));
  ASSERT_TRUE(sim.start_executable(tmp_ / "app/bin/probe"));
  auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
  ASSERT_TRUE(w.resolution.found);
  EXPECT_EQ(w.resolution.rule, SearchRule::kLdLibraryPath);
  EXPECT_EQ(w.resolution.path, tmp_ / "old/lib/libcudnn.so.9");
  const Candidate* loser = candidate(w.resolution, tmp_ / "app/bin/../rp/libcudnn.so.9");
  ASSERT_NE(loser, nullptr);
  EXPECT_EQ(loser->rule, SearchRule::kRunpath);
  ASSERT_TRUE(w.cudnn);
  EXPECT_FALSE(w.cudnn->mixed);  // the old shim loads its own sub-libraries
  // Without LD_LIBRARY_PATH the RUNPATH copy loads.
  LoaderSimulation clean(*fs_, isolated());
  ASSERT_TRUE(clean.start_executable(tmp_ / "app/bin/probe"));
  auto w2 = finish_which(*fs_, clean, "libcudnn.so.9", 0, WhichReport{});
  EXPECT_EQ(w2.resolution.rule, SearchRule::kRunpath);
}

TEST_F(GlibcResolver, RunpathOfAnObjectCancelsItsRpath) {
  make_loading_copy("9.19.0", tmp_ / "a");
  make_loading_copy("9.14.0", tmp_ / "b");
  ElfInfo both = program({"libcudnn.so.9"});
  both.rpath = {tmp_ / "a"};
  both.runpath = {tmp_ / "b"};
  both.has_runpath_tag = true;
  LoaderSimulation sim(*fs_, isolated());
  sim.start_synthetic("prog", both, tmp_.path());
  auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
  EXPECT_EQ(w.resolution.rule, SearchRule::kRunpath);
  EXPECT_EQ(w.resolution.path, tmp_ / "b/libcudnn.so.9");
  EXPECT_EQ(candidate(w.resolution, tmp_ / "a/libcudnn.so.9"), nullptr);  // never searched
}

TEST_F(GlibcResolver, RpathIsInheritedDownTheChainButRunpathIsNot) {
  for (std::string kind : {"rpath", "runpath"}) {
    TempDir t;
    copy_file(loader_fixture("bin/probe_chain_" + kind), t / "bin/probe");
    copy_file(loader_fixture("chain/libmid_" + kind + ".so"), t / "bin/libmid_" + kind + ".so");
    copy_file(loader_fixture("chain/libleaf.so"), t / "rp/libleaf.so");
    make_loading_copy("9.19.0", t / "rp");
    make_loading_copy("9.14.0", t / "default");
    LoaderSystem sys = isolated();
    sys.default_dirs.front() = t / "default";
    LoaderSimulation sim(*fs_, sys);
    ASSERT_TRUE(sim.start_executable(t / "bin/probe"));
    auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
    ASSERT_TRUE(w.resolution.found) << kind << ": " << w.resolution.error;
    EXPECT_NE(w.resolution.requester.find("libleaf.so"), std::string::npos);
    if (kind == "rpath") {
      // libleaf.so has no paths; the RPATH of libmid_rpath.so (its loader) applies.
      EXPECT_EQ(w.resolution.rule, SearchRule::kRpath);
      EXPECT_NE(w.resolution.rule_detail.find("libmid_rpath.so"), std::string::npos);
      EXPECT_EQ(w.resolution.path, t / "bin/../rp/libcudnn.so.9");
    } else {
      // libmid_runpath.so's RUNPATH found libleaf.so but does not apply to libleaf's own needs.
      EXPECT_EQ(w.resolution.rule, SearchRule::kDefault);
      EXPECT_EQ(w.resolution.path, t / "default/libcudnn.so.9");
    }
  }
}

TEST_F(GlibcResolver, CacheHitsAndShadowingByAnOlderCopy) {
  make_loading_copy("9.19.0", tmp_ / "toolkit/lib");
  make_loading_copy("9.14.0", tmp_ / "old/lib");
  std::vector<testing::CacheRecord> cache = {{"libcudnn.so.9", tmp_ / "toolkit/lib/libcudnn.so.9", 0x0303, ""}};
  // Plain program: the cache finds the toolkit copy.
  LoaderSimulation sim(*fs_, isolated({}, cache));
  sim.start_synthetic("prog", program({"libcudnn.so.9"}), tmp_.path());
  auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
  EXPECT_EQ(w.resolution.rule, SearchRule::kCache);
  EXPECT_EQ(w.resolution.path, tmp_ / "toolkit/lib/libcudnn.so.9");
  EXPECT_NE(w.resolution.rule_detail.find("libc6,x86-64"), std::string::npos);
  // An older copy on LD_LIBRARY_PATH shadows it.
  LoaderSimulation shadowed(*fs_, isolated({tmp_ / "old/lib"}, cache));
  shadowed.start_synthetic("prog", program({"libcudnn.so.9"}), tmp_.path());
  auto w2 = finish_which(*fs_, shadowed, "libcudnn.so.9", 0, WhichReport{});
  EXPECT_EQ(w2.resolution.path, tmp_ / "old/lib/libcudnn.so.9");
  ASSERT_TRUE(w2.cudnn && w2.cudnn->shim_version);
  EXPECT_EQ(w2.cudnn->shim_version->str(), "9.14.0");
  const Candidate* cached = candidate(w2.resolution, tmp_ / "toolkit/lib/libcudnn.so.9");
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->rule, SearchRule::kCache);
  EXPECT_NE(cached->outcome.find("loses: LD_LIBRARY_PATH"), std::string::npos);
  // A cache entry whose file is gone falls through to the default directories.
  std::vector<testing::CacheRecord> stale = {{"libcudnn.so.9", tmp_ / "gone/libcudnn.so.9", 0x0303, ""}};
  make_loading_copy("9.19.0", tmp_ / "default");
  LoaderSimulation fallback(*fs_, isolated({}, stale));
  fallback.start_synthetic("prog", program({"libcudnn.so.9"}), tmp_.path());
  auto w3 = finish_which(*fs_, fallback, "libcudnn.so.9", 0, WhichReport{});
  EXPECT_EQ(w3.resolution.rule, SearchRule::kDefault);
}

TEST_F(GlibcResolver, SkipsWrongClassAndStopsAtNonElf) {
  make_loading_copy("9.19.0", tmp_ / "good");
  // A 32-bit i386 ELF header (no program headers) named like the library.
  std::string elf32(52, '\0');
  elf32.replace(0, 4, "\x7f" "ELF");
  elf32[4] = 1;  // ELFCLASS32
  elf32[5] = 1;  // little endian
  elf32[6] = 1;
  elf32[16] = 3;  // ET_DYN
  elf32[18] = 3;  // EM_386
  write_text(tmp_ / "bits32/libcudnn.so.9", elf32);
  LoaderSimulation sim(*fs_, isolated({tmp_ / "bits32", tmp_ / "good"}));
  sim.start_synthetic("prog", program({"libcudnn.so.9"}), tmp_.path());
  auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
  ASSERT_TRUE(w.resolution.found) << w.resolution.error;
  EXPECT_EQ(w.resolution.path, tmp_ / "good/libcudnn.so.9");
  const Candidate* skipped = candidate(w.resolution, tmp_ / "bits32/libcudnn.so.9");
  ASSERT_NE(skipped, nullptr);
  EXPECT_NE(skipped->outcome.find("32-bit"), std::string::npos);
  // A file that is not ELF at all ends the search with ld.so's error.
  write_text(tmp_ / "text/libcudnn.so.9", "INPUT(-lcudnn)\n");
  LoaderSimulation bad(*fs_, isolated({tmp_ / "text", tmp_ / "good"}));
  bad.start_synthetic("prog", program({"libcudnn.so.9"}), tmp_.path());
  auto w2 = finish_which(*fs_, bad, "libcudnn.so.9", 0, WhichReport{});
  EXPECT_FALSE(w2.resolution.found);
  EXPECT_NE(w2.resolution.error.find(tmp_ / "text/libcudnn.so.9"), std::string::npos);
}

TEST_F(GlibcResolver, PreloadedSonameWinsEverySearch) {
  make_loading_copy("9.14.0", tmp_ / "old");
  make_loading_copy("9.19.0", tmp_ / "new");
  LoaderSystem sys = isolated({tmp_ / "new"});
  sys.ld_preload = {tmp_ / "old/libcudnn.so.9"};
  LoaderSimulation sim(*fs_, sys);
  sim.start_synthetic("prog", program({"libcudnn.so.9"}), tmp_.path());
  auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
  ASSERT_TRUE(w.resolution.found);
  EXPECT_EQ(w.resolution.rule, SearchRule::kAlreadyLoaded);
  EXPECT_EQ(w.resolution.path, tmp_ / "old/libcudnn.so.9");
  // The copy the search would otherwise find is listed as losing.
  const Candidate* loser = candidate(w.resolution, tmp_ / "new/libcudnn.so.9");
  ASSERT_NE(loser, nullptr);
  EXPECT_TRUE(loser->exists);
}

TEST_F(GlibcResolver, AMissingDependencyIsReportedAsAFailedLoad) {
  make_loading_copy("9.19.0", tmp_ / "default");
  LoaderSimulation sim(*fs_, isolated());
  sim.start_synthetic("prog", program({"libabsent.so.1", "libcudnn.so.9"}), tmp_.path());
  auto w = finish_which(*fs_, sim, "libcudnn.so.9", 0, WhichReport{});
  EXPECT_TRUE(w.resolution.found);
  bool noted = false;
  for (const auto& n : w.notes) noted |= n.find("libabsent.so.1") != std::string::npos && n.find("would fail") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(GlibcResolver, DlopenFromALibraryUsesThatLibrarysPaths) {
  copy_file(loader_fixture("chain/libmid_runpath.so"), tmp_ / "lib/libmid_runpath.so");
  copy_file(loader_fixture("chain/libleaf.so"), tmp_ / "rp/libleaf.so");
  make_loading_copy("9.19.0", tmp_ / "rp");
  // libleaf.so's own libcudnn.so.9 is not found through libmid's RUNPATH: a shim in the default
  // directory lets the dlopen succeed (else it fails as a whole, as glibc's does).
  copy_file(loader_fixture("shim-9.14.0/libcudnn.so.9"), tmp_ / "default/libcudnn.so.9");
  LoaderSimulation sim(*fs_, isolated());
  sim.start_synthetic("prog", program({}), tmp_.path());
  Resolution mid = sim.dlopen(tmp_ / "lib/libmid_runpath.so", 0);
  ASSERT_TRUE(mid.found) << mid.error;
  int mid_index = sim.find_loaded(tmp_ / "lib/libmid_runpath.so");
  ASSERT_GE(mid_index, 0);
  Resolution from_lib = sim.locate("libcudnn_ops.so.9", mid_index, "dlopen");
  EXPECT_TRUE(from_lib.found);
  EXPECT_EQ(from_lib.rule, SearchRule::kRunpath);
  Resolution from_main = sim.locate("libcudnn_ops.so.9", 0, "dlopen");
  EXPECT_FALSE(from_main.found);
}

}  // namespace
}  // namespace cudnnup
#endif  // CUDNNUP_FIXTURE_DIR
