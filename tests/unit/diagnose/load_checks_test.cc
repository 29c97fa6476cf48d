// The environment's effect on what loads, judged on the in-memory filesystem with the real loader
// model (`which`'s resolver): mixes, redirects and shadowing become findings about the variable,
// with the entry to drop, never about a copy. Runs on every OS (the machine is Linux).
#include <gtest/gtest.h>

#include "base/paths.h"
#include "diagnose/load_checks.h"
#include "shell/fix_render.h"
#include "facts/cudnn_files.h"
#include "support/elf_builder.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

const std::string kSystem = "/usr/lib/x86_64-linux-gnu";  // a default directory of Debian's glibc

const std::vector<std::string>& components() {
  static const std::vector<std::string> c = {"graph", "ops", "cnn", "adv", "heuristic", "engines_precompiled",
                                             "engines_runtime_compiled"};
  return c;
}

CudnnLibrary library(const std::string& component, const std::string& path) {
  CudnnLibrary l;
  l.component = component;
  l.path = l.real_path = path;
  l.major = 9;
  return l;
}

// A cuDNN 9 copy in `lib_dir` (every file under its SONAME name) with cudnn_version.h beside it.
CudnnCopy add_copy(MemoryFileSystem& fs, const std::string& lib_dir, int minor, bool shim = true,
                   const std::vector<std::string>& subs = components()) {
  CudnnCopy c;
  c.lib_dir = lib_dir;
  c.root = paths::parent(lib_dir);
  c.header_version = Version{9, minor, 0};
  c.cuda_major = 13;
  if (shim) {
    testing::ElfSpec shim;
    shim.soname = "libcudnn.so.9";
    shim.runpath = "$ORIGIN";
    fs.add_file(lib_dir + "/libcudnn.so.9", testing::build_elf(shim));
    c.libraries.push_back(library("cudnn", lib_dir + "/libcudnn.so.9"));
  }
  for (const auto& s : subs) {
    std::string name = cudnn_library_file_name(s, 9, false);
    fs.add_file(lib_dir + "/" + name, testing::elf_library(name));
    c.libraries.push_back(library(s, lib_dir + "/" + name));
  }
  fs.add_file(c.root + "/include/cudnn_version.h", "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR " + std::to_string(minor) +
                                                       "\n#define CUDNN_PATCHLEVEL 0\n");
  return c;
}

Environment env_with(std::map<std::string, std::string> vars, const std::string& cwd = "/home/u") {
  Environment env;
  env.vars = std::move(vars);
  env.cwd = cwd;
  env.home = "/home/u";
  return env;
}

// check_loads for a plain program (libcudnn.so.9) under `env`, paired with the answer without the variables.
std::vector<Finding> judge_plain(const MemoryFileSystem& fs, const Environment& env, const Report& report) {
  WhichReport with = which_plain_program(fs, env, "libcudnn.so.9");
  WhichReport without = which_plain_program(fs, without_loader_variables(env), "libcudnn.so.9");
  LoadTarget t{with.target, {"which", "libcudnn.so.9"}, &with, sets_loader_variables(env) ? &without : nullptr, true, true};
  return check_loads({t}, report, fs, env);
}

const Finding* find_finding(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

TEST(LoadChecks, NothingToSayWithoutTheVariables) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, kSystem, 19)};
  EXPECT_TRUE(judge_plain(fs, env_with({}), r).empty());
}

TEST(LoadChecks, LdLibraryPathRedirectsAPlainProgram) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, "/opt/old/lib", 14), add_copy(fs, kSystem, 19)};
  auto findings = judge_plain(fs, env_with({{"LD_LIBRARY_PATH", "/opt/old/lib"}}), r);
  const Finding* f = find_finding(findings, "env.redirects_cudnn");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "LD_LIBRARY_PATH");
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->title.find("load cuDNN 9.14.0 in /opt/old/lib instead of cuDNN 9.19.0 in " + kSystem), std::string::npos)
      << f->title;
  EXPECT_EQ(render_fix(f->fix, Shell::kBash)[0], "unset LD_LIBRARY_PATH   # drops /opt/old/lib");
  EXPECT_EQ(find_finding(findings, "cudnn.shadowed"), nullptr) << "the same contest, told once";
  EXPECT_EQ(find_finding(findings, "loader.mixed_copies"), nullptr);
}

TEST(LoadChecks, AnEmptyEntryIsTheCurrentDirectory) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, "/home/u/build", 14), add_copy(fs, kSystem, 19)};
  // `export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64` with the variable unset.
  auto findings = judge_plain(fs, env_with({{"LD_LIBRARY_PATH", ":/usr/local/cuda/lib64"}}, "/home/u/build"), r);
  const Finding* f = find_finding(findings, "env.redirects_cudnn");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(render_fix(f->fix, Shell::kBash)[0],
            "export LD_LIBRARY_PATH='/usr/local/cuda/lib64'   # drops the empty entry (the current directory)");
}

// Dropping one entry keeps every other exactly, an empty one included; when only an empty entry
// would be left, the variable goes and the note says the empty entry goes with it.
TEST(LoadChecks, TheFixKeepsTheOtherEntriesExactlyAndSaysWhenTheEmptyOneGoesToo) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, "/opt/old/lib", 14), add_copy(fs, kSystem, 19)};
  auto trailing = judge_plain(fs, env_with({{"LD_LIBRARY_PATH", "/opt/old/lib:"}}, "/home/u"), r);
  const Finding* f = find_finding(trailing, "env.redirects_cudnn");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(render_fix(f->fix, Shell::kBash)[0],
            "unset LD_LIBRARY_PATH   # drops /opt/old/lib and the empty entry (the current directory) left beside it");
  auto middle = judge_plain(fs, env_with({{"LD_LIBRARY_PATH", "/opt/old/lib::/opt/x"}}, "/home/u"), r);
  f = find_finding(middle, "env.redirects_cudnn");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(render_fix(f->fix, Shell::kBash)[0], "export LD_LIBRARY_PATH=':/opt/x'   # drops /opt/old/lib");
}

TEST(LoadChecks, ASubLibraryFromAnotherCopyIsAnErrorAboutTheVariable) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, kSystem, 19), add_copy(fs, "/opt/stray/lib", 14, /*shim=*/false, {"graph"})};
  auto findings = judge_plain(fs, env_with({{"LD_LIBRARY_PATH", "/opt/x:/opt/stray/lib"}}), r);
  const Finding* f = find_finding(findings, "loader.mixed_copies");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->subject, "LD_LIBRARY_PATH");
  EXPECT_EQ(f->evidence[0].rfind("shim: libcudnn.so.9 from " + kSystem + " (default directories", 0), 0u) << f->evidence[0];
  EXPECT_NE(f->evidence[1].find("libcudnn_graph.so.9 from /opt/stray/lib (LD_LIBRARY_PATH (/opt/stray/lib))"),
            std::string::npos)
      << f->evidence[1];
  EXPECT_EQ(render_fix(f->fix, Shell::kBash)[0], "export LD_LIBRARY_PATH='/opt/x'   # drops /opt/stray/lib");
}

TEST(LoadChecks, APreloadedGraphIsWhatTheShimBindsTo) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, kSystem, 19), add_copy(fs, "/opt/old/lib", 14)};
  auto findings = judge_plain(fs, env_with({{"LD_PRELOAD", "/opt/old/lib/libcudnn_graph.so.9"}}), r);
  const Finding* f = find_finding(findings, "loader.mixed_copies");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->subject, "LD_PRELOAD");
  EXPECT_EQ(render_fix(f->fix, Shell::kBash)[0], "unset LD_PRELOAD   # drops /opt/old/lib/libcudnn_graph.so.9");
}

TEST(LoadChecks, TheSameReleaseFromTwoCopiesIsOnlyAWarning) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, kSystem, 19), add_copy(fs, "/opt/twin/lib", 19, /*shim=*/false, {"graph"})};
  auto findings = judge_plain(fs, env_with({{"LD_LIBRARY_PATH", "/opt/twin/lib"}}), r);
  const Finding* f = find_finding(findings, "loader.mixed_copies");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
}

TEST(LoadChecks, ThreeCopiesOnTheSearchPathAreShadowing) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, "/opt/a/lib", 14), add_copy(fs, "/opt/b/lib", 19), add_copy(fs, kSystem, 19)};
  auto findings = judge_plain(fs, env_with({{"LD_LIBRARY_PATH", "/opt/a/lib:/opt/b/lib"}}), r);
  const Finding* f = find_finding(findings, "cudnn.shadowed");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->subject, "/opt/a/lib");
  ASSERT_EQ(f->evidence.size(), 3u);
  EXPECT_EQ(f->evidence[0], "wins: cuDNN 9.14.0 in /opt/a/lib (LD_LIBRARY_PATH (/opt/a/lib))");
  EXPECT_EQ(f->evidence[2].rfind("shadowed: cuDNN 9.19.0 in " + kSystem + " (default directories", 0), 0u) << f->evidence[2];
  EXPECT_EQ(render_fix(f->fix, Shell::kBash)[0], "export LD_LIBRARY_PATH='/opt/b/lib'   # drops /opt/a/lib");
  EXPECT_NE(find_finding(findings, "env.redirects_cudnn"), nullptr);
}

TEST(LoadChecks, FrameworkRejectedByTheEnvironmentIsFixedInTheEnvironment) {
  MemoryFileSystem fs;
  Report r;
  r.copies = {add_copy(fs, "/venv/site/nvidia/cudnn/lib", 19), add_copy(fs, "/opt/old/lib", 14)};
  Environment env = env_with({{"LD_LIBRARY_PATH", "/opt/old/lib"}});
  FrameworkReport fw;
  fw.framework = "torch";
  fw.version = "2.9.0";
  fw.env_prefix = "/venv";
  fw.interpreter = "/venv/bin/python3";
  fw.site_packages = "/venv/site";
  fw.passes = false;
  fw.verdict = "fails its check";
  fw.load = which_plain_program(fs, env, "libcudnn.so.9");  // lands on /opt/old/lib through LD_LIBRARY_PATH
  auto findings = check_frameworks({fw}, r, fs, env);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].id, "framework.cudnn_rejected");
  EXPECT_EQ(render_fix(findings[0].fix, Shell::kBash)[0], "unset LD_LIBRARY_PATH   # drops /opt/old/lib");
  for (const auto& line : render_fix(findings[0].fix, Shell::kBash)) EXPECT_EQ(line.find("--force-reinstall"), std::string::npos) << line;
  // Without the variable, the framework's own problem: then reinstalling is the fix.
  fw.load = which_plain_program(fs, without_loader_variables(env), "libcudnn.so.9");
  auto own = check_frameworks({fw}, r, fs, without_loader_variables(env));
  EXPECT_NE(render_fix(own[0].fix, Shell::kBash).back().find("--force-reinstall torch"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup
