// Doctor's per-copy checks, each on its own against a hand-built Report (runs on every OS).
// A healthy cuDNN 9.19 merged into a CUDA 13.0 toolkit is the starting point; each test breaks
// one thing and expects exactly that check to speak.
#include <gtest/gtest.h>

#include <set>

#include "diagnose/checks.h"
#include "diagnose/copy_checks.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"
#include "shell/fix_render.h"

namespace cudnnup {
namespace {

namespace id = finding_id;

// A fix as bash prints it (shell/fix_render.h).
std::vector<std::string> text(const std::vector<FixStep>& fix) { return render_fix(fix, Shell::kBash); }

CudnnLibrary lib(const std::string& dir, const std::string& component, const std::string& file_name) {
  CudnnLibrary l;
  l.component = component;
  l.path = dir + "/" + file_name;
  l.real_path = l.path;
  l.major = 9;
  l.soname = cudnn_library_file_name(component, 9, false);
  l.size = 4096;
  return l;
}

// cuDNN 9.19.0 for CUDA 13 in /usr/local/cuda-13.0/lib, every sub-library under its SONAME name.
CudnnCopy healthy_copy() {
  CudnnCopy c;
  c.root = "/usr/local/cuda-13.0";
  c.lib_dir = "/usr/local/cuda-13.0/lib";
  c.include_dir = "/usr/local/cuda-13.0/include";
  c.form = PackageForm::kToolkitMerged;
  c.found_via = {"toolkit /usr/local/cuda-13.0"};
  c.header_version = Version::parse("9.19.0").value();
  c.header_path = "/usr/local/cuda-13.0/include/cudnn_version.h";
  c.library_version = c.header_version;
  c.library_version_source = "cudnnGetVersion()";
  c.cuda_major = 13;
  c.cuda_major_source = "cudnnGetCudartVersion()";
  c.libraries.push_back(lib(c.lib_dir, "cudnn", "libcudnn.so.9"));
  for (const char* comp : {"graph", "ops", "cnn", "adv", "heuristic", "engines_precompiled", "engines_runtime_compiled"}) {
    c.libraries.push_back(lib(c.lib_dir, comp, cudnn_library_file_name(comp, 9, false)));
  }
  c.probe.attempted = true;
  c.probe.loaded = true;
  c.probe.version = c.library_version;
  c.probe.version_number = 91900;
  c.probe.cudart_version = Version::parse("13.0").value();
  return c;
}

Report machine_with(const CudnnCopy& copy) {
  Report r;
  r.os = "linux";
  Toolkit tk;
  tk.root = "/usr/local/cuda-13.0";
  tk.version = Version::parse("13.0.2").value();
  r.toolkits.push_back(tk);
  r.driver.present = true;
  r.driver.version_text = "580.95.05";
  r.driver.version = Version::parse("580.95.05").value();
  r.driver.gpus.push_back(Gpu{0, "NVIDIA H200", Version::parse("9.0").value(), 0});
  r.copies.push_back(copy);
  return r;
}

std::vector<Finding> run(std::string_view check, const CudnnCopy& copy, const Report& report,
                         const Environment& env = Environment{}) {
  const CopyCheck* c = find_copy_check(check);
  EXPECT_NE(c, nullptr) << check;
  if (!c) return {};
  auto out = c->run(make_copy_check_input(copy, report, builtin_rules(), env));
  for (const auto& f : out) {
    bool declared = false;
    for (auto i : c->ids) declared = declared || f.id == i;
    EXPECT_TRUE(declared) << check << " reported " << f.id << ", which its table row does not list";
  }
  return out;
}

std::vector<std::string> ids(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.id);
  return out;
}

TEST(CopyChecks, HealthyCopyHasNothingToSay) {
  CudnnCopy c = healthy_copy();
  EXPECT_TRUE(check_copy(c, machine_with(c), builtin_rules(), Environment{}).empty());
}

TEST(CopyChecks, TableNamesAndIdsAreUniqueAndKnown) {
  std::set<std::string_view> names, seen;
  const auto& known = id::all();
  for (const auto& c : copy_checks()) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_FALSE(c.ids.empty()) << c.name;
    for (auto i : c.ids) {
      EXPECT_TRUE(seen.insert(i).second) << i << " is claimed by two checks";
      EXPECT_NE(std::find(known.begin(), known.end(), i), known.end()) << i;
    }
  }
  EXPECT_EQ(find_copy_check("no_such_check"), nullptr);
}

TEST(CopyChecks, LibraryFilesDamagedAndDangling) {
  CudnnCopy c = healthy_copy();
  c.libraries[2].problems = {"truncated: the section table ends at byte 9000 but the file has 4096 bytes", "second"};
  CudnnLibrary dev = lib(c.lib_dir, "cudnn", "libcudnn.so");
  dev.is_link = true;
  dev.dangling = true;
  dev.real_path = c.lib_dir + "/libcudnn.so.9.19.0";
  dev.problems = {"dangling link: its target does not exist"};
  c.libraries.push_back(dev);
  auto f = run("library_files", c, machine_with(c));
  ASSERT_EQ(ids(f), (std::vector<std::string>{"cudnn.library_damaged", "cudnn.dangling_link"}));
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].evidence, (std::vector<std::string>{c.libraries[2].path, "second"}));
  // A damaged library is reinstalled into its toolkit; removing it would only make it missing.
  EXPECT_EQ(text(f[0].fix), (std::vector<std::string>{"Reinstall cuDNN 9.19.0:", "cudnnup install 9.19.0 --cuda 13 --into /usr/local/cuda-13.0"}));
  // A dangling development link may simply go.
  EXPECT_EQ(text(f[1].fix).back(), "rm " + dev.path);
  EXPECT_EQ(f[1].severity, Severity::kWarning) << "only the dev link dangles: building breaks, running does not";
  EXPECT_EQ(f[1].evidence.back(), "-> " + dev.real_path);
}

TEST(CopyChecks, SublibrariesPresentNamesEachMissingFile) {
  CudnnCopy c = healthy_copy();
  c.libraries.erase(c.libraries.begin() + 2);  // ops
  c.libraries.back().dangling = true;          // engines_runtime_compiled: a link to nothing counts as absent
  auto f = run("sublibraries_present", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.sublibrary_missing"});
  EXPECT_EQ(f[0].evidence, (std::vector<std::string>{"libcudnn_ops.so.9", "libcudnn_engines_runtime_compiled.so.9"}));
  EXPECT_EQ(text(f[0].fix), (std::vector<std::string>{"Reinstall the complete cuDNN 9.19.0:",
                                                       "cudnnup install 9.19.0 --cuda 13 --into /usr/local/cuda-13.0"}));
  // From 9.21 the rules data expects engines_tensor_ir as well.
  CudnnCopy newer = healthy_copy();
  newer.library_version = newer.header_version = Version::parse("9.21.0").value();
  EXPECT_EQ(run("sublibraries_present", newer, machine_with(newer))[0].evidence,
            std::vector<std::string>{"libcudnn_engines_tensor_ir.so.9"});
  // A pip wheel is repaired with pip.
  c.form = PackageForm::kPipWheel;
  c.package = "nvidia-cudnn-cu13 9.19.0.56";
  EXPECT_EQ(text(run("sublibraries_present", c, machine_with(c))[0].fix),
            std::vector<std::string>{"pip install --force-reinstall --no-deps nvidia-cudnn-cu13==9.19.0.56"});
  // No version known: nothing to compare with.
  c.library_version = c.header_version = Version{};
  EXPECT_TRUE(run("sublibraries_present", c, machine_with(c)).empty());
}

TEST(CopyChecks, SublibraryVersionsFromFileNames) {
  CudnnCopy c = healthy_copy();
  c.libraries[1].version_from_name = Version::parse("9.19.0").value();
  c.libraries[1].path = c.lib_dir + "/libcudnn_graph.so.9.19.0";
  EXPECT_TRUE(run("sublibrary_versions", c, machine_with(c)).empty());
  c.libraries[2].version_from_name = Version::parse("9.14.0").value();
  c.libraries[2].path = c.lib_dir + "/libcudnn_ops.so.9.14.0";
  auto f = run("sublibrary_versions", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.mixed_sublibrary_versions"});
  EXPECT_EQ(f[0].evidence, (std::vector<std::string>{"9.14.0: libcudnn_ops.so.9.14.0", "9.19.0: libcudnn_graph.so.9.19.0"}));
}

TEST(CopyChecks, HeaderMatchesLibrary) {
  CudnnCopy c = healthy_copy();
  c.header_version = Version::parse("9.14.0").value();
  auto f = run("header_matches_library", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.header_library_mismatch"});
  EXPECT_EQ(f[0].evidence[1], "/usr/local/cuda-13.0/lib: 9.19.0 (cudnnGetVersion())");
  EXPECT_EQ(text(f[0].fix)[1], "cudnnup install 9.19.0 --cuda 13 --into /usr/local/cuda-13.0");
  c.header_version = Version::parse("9.19.0.56").value();  // compared to three parts
  EXPECT_TRUE(run("header_matches_library", c, machine_with(c)).empty());
}

TEST(CopyChecks, ShimLoadsFailedOrCrashed) {
  CudnnCopy c = healthy_copy();
  c.probe.loaded = false;
  c.probe.failure = "libcudnn.so.9: cannot open shared object file";
  auto f = run("shim_loads", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.load_failed"});
  EXPECT_EQ(text(f[0].fix), (std::vector<std::string>{"Reinstall this copy; if it persists, check its dependencies:",
                                                       "ldd /usr/local/cuda-13.0/lib/libcudnn.so.9"}));
  c.probe.failure = "loading X: the probe process crashed (signal 11, SIGSEGV)";
  EXPECT_EQ(ids(run("shim_loads", c, machine_with(c))), std::vector<std::string>{"cudnn.load_crashed"});
  c.probe.failure = "loading X: the probe process did not finish in 15000 ms";
  EXPECT_EQ(ids(run("shim_loads", c, machine_with(c))), std::vector<std::string>{"cudnn.load_crashed"});
  c.probe.attempted = false;  // never probed (no whole shim file): nothing to say here
  EXPECT_TRUE(run("shim_loads", c, machine_with(c)).empty());
}

TEST(CopyChecks, ProbeIsolated) {
  CudnnCopy c = healthy_copy();
  EXPECT_TRUE(run("probe_isolated", c, machine_with(c)).empty());
  c.probe.isolated = false;
  c.probe.isolation_problem = "could not be probed in isolation: /x/libcudnn_graph.so.9 came from the copy in /x";
  c.probe.mapped_files = {c.lib_dir + "/libcudnn.so.9", "/x/libcudnn_graph.so.9"};
  auto f = run("probe_isolated", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.probe_not_isolated"});
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].title, "cuDNN 9.19.0 in /usr/local/cuda-13.0/lib " + c.probe.isolation_problem);
  EXPECT_EQ(f[0].evidence, c.probe.mapped_files);
  EXPECT_TRUE(f[0].fix.empty()) << "nothing to change in the copy";
}

TEST(CopyChecks, CudaMajorMatchesToolkitPrefersTheProbe) {
  CudnnCopy c = healthy_copy();
  c.probe.cudart_version = Version::parse("12.8").value();  // the library says CUDA 12
  auto f = run("cuda_major_matches_toolkit", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.cuda_major_mismatch"});
  EXPECT_EQ(f[0].evidence[0], "built for CUDA 12 (cudnnGetCudartVersion)");
  EXPECT_EQ(text(f[0].fix), std::vector<std::string>{"cudnnup install 9.19.0 --cuda 13 --into /usr/local/cuda-13.0"});
  c.form = PackageForm::kArchiveTree;  // only a merge into a toolkit is judged against it
  EXPECT_TRUE(run("cuda_major_matches_toolkit", c, machine_with(c)).empty());
}

TEST(CopyChecks, BuildVariantExists) {
  CudnnCopy c = healthy_copy();
  c.library_version = c.header_version = Version::parse("9.10.0").value();  // no CUDA 13 build before 9.12
  auto f = run("build_variant_exists", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.unknown_build_variant"});
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_EQ(f[0].evidence[0], "CUDA 13 builds: 9.12.0 to current");
}

TEST(CopyChecks, DriverNewEnoughForTheCudaMajor) {
  CudnnCopy c = healthy_copy();
  Report r = machine_with(c);
  r.driver.version_text = "535.104.05";
  r.driver.version = Version::parse("535.104.05").value();
  auto f = run("driver_new_enough", c, r);
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.driver_too_old"});
  EXPECT_EQ(text(f[0].fix)[1], "or use a cuDNN build for an older CUDA major:");
  ASSERT_EQ(f[0].fix[2].kind, FixKind::kCudnnup) << "the newest cuDNN 9 for CUDA 12 cudnnup knows an archive of";
  EXPECT_EQ(f[0].fix[2].argv[2], "9") << "install 9 takes the newest cuDNN 9";
  EXPECT_EQ(std::vector<std::string>(f[0].fix[2].argv.begin() + 3, f[0].fix[2].argv.end()),
            (std::vector<std::string>{"--cuda", "12"}));
  r.driver.present = false;
  EXPECT_TRUE(run("driver_new_enough", c, r).empty());
}

TEST(CopyChecks, GpusSupported) {
  CudnnCopy c = healthy_copy();
  Report r = machine_with(c);
  r.driver.gpus.push_back(Gpu{1, "Tesla K80", Version::parse("3.7").value(), 0});
  auto f = run("gpus_supported", c, r);
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.gpu_unsupported"});
  EXPECT_NE(f[0].title.find("GPU 1 (Tesla K80, compute capability 3.7)"), std::string::npos) << f[0].title;
}

TEST(CopyChecks, KnownBadReleaseUsesThePackageVersionAndPlatform) {
  CudnnCopy c = healthy_copy();
  c.form = PackageForm::kPipWheel;
  c.library_version = c.header_version = Version::parse("9.20.0").value();
  c.package = "nvidia-cudnn-cu13 9.20.0.48";
  auto f = run("known_bad_release", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.known_bad_release"});
  EXPECT_EQ(text(f[0].fix), (std::vector<std::string>{"Install the 9.21 wheel or later:", "pip install -U 'nvidia-cudnn-cu13>=9.21'"}));
  c.package = "nvidia-cudnn-cu13 9.20.0.49";
  EXPECT_TRUE(run("known_bad_release", c, machine_with(c)).empty());
  c.package = "nvidia-cudnn-cu13 9.20.0.48";
  Environment windows;
  windows.os = OsKind::kWindows;
  EXPECT_TRUE(run("known_bad_release", c, machine_with(c), windows).empty()) << "the rule is for Linux";
}

TEST(CopyChecks, SonameLinksForVersionedFiles) {
  CudnnCopy c = healthy_copy();
  c.libraries[1].path = c.lib_dir + "/libcudnn_graph.so.9.19.0";
  c.libraries[1].version_from_name = Version::parse("9.19.0").value();
  auto f = run("soname_links", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.soname_link_missing"});
  EXPECT_EQ(f[0].evidence, std::vector<std::string>{"libcudnn_graph.so.9"});
  EXPECT_EQ(text(f[0].fix)[0], "sudo ldconfig -n /usr/local/cuda-13.0/lib   # creates the libcudnn*.so.9 links");
  c.libraries.push_back(lib(c.lib_dir, "graph", "libcudnn_graph.so.9"));
  EXPECT_TRUE(run("soname_links", c, machine_with(c)).empty());
}

TEST(CopyChecks, LdCacheCurrent) {
  CudnnCopy c = healthy_copy();
  c.found_via = {"ld.so.conf"};
  EXPECT_EQ(ids(run("ld_cache_current", c, machine_with(c))), std::vector<std::string>{"cudnn.ldconfig_stale"});
  c.found_via = {"ld.so.cache", "ld.so.conf"};
  EXPECT_TRUE(run("ld_cache_current", c, machine_with(c)).empty());
}

TEST(CopyChecks, HeaderPresent) {
  CudnnCopy c = healthy_copy();
  c.header_version = Version{};
  auto f = run("header_present", c, machine_with(c));
  ASSERT_EQ(ids(f), std::vector<std::string>{"cudnn.no_header"});
  EXPECT_EQ(f[0].severity, Severity::kInfo);
}

TEST(CopyChecks, CheckCopyRunsTheTableInOrder) {
  CudnnCopy c = healthy_copy();
  c.header_version = Version{};         // header_present (last row)
  c.libraries[3].problems = {"empty"};  // library_files (first row)
  auto f = check_copy(c, machine_with(c), builtin_rules(), Environment{});
  EXPECT_EQ(ids(f), (std::vector<std::string>{"cudnn.library_damaged", "cudnn.no_header"}));
}

}  // namespace
}  // namespace cudnnup
