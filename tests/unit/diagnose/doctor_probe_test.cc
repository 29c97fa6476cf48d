// The whole doctor on the in-memory filesystem with a fake Prober: what the probe answers is
// what the copy checks judge (runs on every OS; the machine is described as Linux).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "diagnose/doctor.h"
#include "support/elf_builder.h"
#include "support/fake_prober.h"
#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::FakeProber;
using testing::MemoryFileSystem;

const char* kLib = "/usr/local/cuda-13.0/lib";

// A CUDA 13.0 toolkit with cuDNN 9.19.0 merged in: every sub-library under its SONAME name.
void add_toolkit_with_cudnn(MemoryFileSystem& fs) {
  fs.add_file("/usr/local/cuda-13.0/version.json", R"({"cuda": {"name": "CUDA SDK", "version": "13.0.2"}})");
  fs.add_file("/usr/local/cuda-13.0/include/cudnn_version.h",
              "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 19\n#define CUDNN_PATCHLEVEL 0\n");
  for (const char* c : {"", "_graph", "_ops", "_cnn", "_adv", "_heuristic", "_engines_precompiled",
                        "_engines_runtime_compiled"}) {
    std::string name = std::string("libcudnn") + c + ".so.9";
    fs.add_file(std::string(kLib) + "/" + name, testing::elf_library(name));
  }
}

Environment linux_env() {
  Environment env;
  env.home = "/home/u";
  env.cwd = "/home/u";
  env.vars["HOME"] = "/home/u";
  return env;
}

struct DoctorRun {
  DoctorOutcome outcome;
  const CudnnCopy* copy = nullptr;
  std::vector<std::string> ids;  // findings about the copy
};

DoctorRun doctor(const MemoryFileSystem& fs, FakeProber& prober) {
  Environment env = linux_env();
  DoctorInputs in{fs, env, prober, builtin_rules()};
  DoctorRun r;
  r.outcome = run_doctor_full(in);
  for (const auto& c : r.outcome.report.copies) {
    if (c.lib_dir == kLib) r.copy = &c;
  }
  for (const auto& f : r.outcome.report.findings) {
    if (f.subject == kLib) r.ids.push_back(f.id);
  }
  return r;
}

TEST(DoctorWithFakeProber, TheProbesAnswerIsTheCopysVersion) {
  MemoryFileSystem fs;
  add_toolkit_with_cudnn(fs);
  FakeProber prober;
  prober.set_cudnn_loaded(std::string(kLib) + "/libcudnn.so.9", 91900, 13000);
  DoctorRun r = doctor(fs, prober);
  ASSERT_NE(r.copy, nullptr);
  ASSERT_EQ(prober.cudnn_requests.size(), 1u);
  EXPECT_EQ(prober.cudnn_requests[0].library_path, std::string(kLib) + "/libcudnn.so.9");
  EXPECT_EQ(prober.cudnn_requests[0].lib_dir, kLib) << "the copy's own directory: the child's only library path";
  EXPECT_EQ(r.copy->library_version.str(), "9.19.0");
  EXPECT_EQ(r.copy->library_version_source, "cudnnGetVersion()");
  EXPECT_EQ(r.copy->cuda_major, 13);
  EXPECT_TRUE(r.ids.empty()) << r.ids.front();
  EXPECT_TRUE(prober.driver_requests.empty()) << "no driver libraries on this machine: nothing to ask";
}

// The first copies' probes start while the scan goes on, the rest after it (doctor.cc): however
// they were started, every copy gets its own probe's answer, and each copy is asked once.
TEST(DoctorWithFakeProber, EarlyAndLaterProbesEachAnswerForTheirOwnCopy) {
  MemoryFileSystem fs;
  add_toolkit_with_cudnn(fs);
  FakeProber prober;
  prober.set_cudnn_loaded(std::string(kLib) + "/libcudnn.so.9", 91900, 13000);
  const std::vector<std::pair<std::string, long long>> others = {
      {"/opt/a/lib", 91400}, {"/opt/b/lib", 91000}, {"/opt/c/lib", 90100}, {"/opt/d/lib", 90300}};
  std::string path_list;
  for (const auto& [dir, version] : others) {
    for (const char* c : {"", "_graph"}) {
      std::string name = std::string("libcudnn") + c + ".so.9";
      fs.add_file(dir + "/" + name, testing::elf_library(name));
    }
    prober.set_cudnn_loaded(dir + "/libcudnn.so.9", version, 12080);
    path_list += (path_list.empty() ? "" : ":") + dir;
  }
  Environment env = linux_env();
  env.vars["LD_LIBRARY_PATH"] = path_list;
  DoctorInputs in{fs, env, prober, builtin_rules()};
  DoctorOutcome outcome = run_doctor_full(in);
  EXPECT_EQ(prober.cudnn_requests.size(), others.size() + 1);
  // LD_LIBRARY_PATH's first two copies are visible before any discovery: they start alone, early;
  // the rest start together after the scan.
  ASSERT_GE(prober.cudnn_starts.size(), 3u);
  EXPECT_EQ(prober.cudnn_starts[0].size(), 1u);
  EXPECT_EQ(prober.cudnn_starts[0].at(0).lib_dir, "/opt/a/lib");
  EXPECT_EQ(prober.cudnn_starts[1].at(0).lib_dir, "/opt/b/lib");
  EXPECT_EQ(prober.cudnn_starts.back().size(), others.size() + 1 - 2);
  std::map<std::string, int> asked;
  for (const auto& r : prober.cudnn_requests) ++asked[r.lib_dir];
  for (const auto& [dir, n] : asked) EXPECT_EQ(n, 1) << dir;
  std::map<std::string, std::string> version_of;
  for (const auto& c : outcome.report.copies) version_of[c.lib_dir] = c.library_version.str();
  EXPECT_EQ(version_of[kLib], "9.19.0");
  for (const auto& [dir, version] : others) {
    EXPECT_EQ(version_of[dir], decode_cudnn_version_number(version).str()) << dir;
  }
}

TEST(DoctorWithFakeProber, ProbeSaysAnotherCudaMajorOrVersion) {
  MemoryFileSystem fs;
  add_toolkit_with_cudnn(fs);
  FakeProber prober;
  prober.set_cudnn_loaded(std::string(kLib) + "/libcudnn.so.9", 91400, 12080);
  DoctorRun r = doctor(fs, prober);
  EXPECT_EQ(r.ids, (std::vector<std::string>{"cudnn.header_library_mismatch", "cudnn.cuda_major_mismatch"}));
}

TEST(DoctorWithFakeProber, AProbeThatMappedAnotherCopysFileDoesNotSpeakForTheCopy) {
  MemoryFileSystem fs;
  add_toolkit_with_cudnn(fs);
  fs.add_file("/opt/old/lib/libcudnn_graph.so.9", testing::elf_library("libcudnn_graph.so.9"));
  FakeProber prober;
  LibraryProbe answer;
  answer.loaded = true;
  answer.version_number = 91400;
  answer.version = decode_cudnn_version_number(91400);
  answer.cudart_version = decode_cuda_version_number(12080);
  answer.mapped_files = {std::string(kLib) + "/libcudnn.so.9", "/opt/old/lib/libcudnn_graph.so.9"};
  prober.set_cudnn(std::string(kLib) + "/libcudnn.so.9", answer);
  DoctorRun r = doctor(fs, prober);
  ASSERT_NE(r.copy, nullptr);
  EXPECT_FALSE(r.copy->probe.isolated);
  EXPECT_EQ(r.copy->probe.isolation_problem,
            "could not be probed in isolation: /opt/old/lib/libcudnn_graph.so.9 came from /opt/old/lib, which holds no "
            "copy doctor lists (its answer, cuDNN 9.14.0 for CUDA 12, is not this copy's)");
  EXPECT_FALSE(r.copy->library_version.known()) << "never another copy's numbers";
  EXPECT_FALSE(r.copy->probe.version.known());
  EXPECT_EQ(r.copy->cuda_major, 0);
  // Judged by its files (header 9.19.0): no mismatch, no wrong CUDA major; the note is a warning.
  EXPECT_EQ(r.ids, (std::vector<std::string>{"cudnn.probe_not_isolated"}));
  // Every mapped file the copy's own: the answer is the copy's.
  answer.mapped_files = {std::string(kLib) + "/libcudnn.so.9", std::string(kLib) + "/libcudnn_graph.so.9"};
  answer.version_number = 91900;
  answer.version = decode_cudnn_version_number(91900);
  answer.cudart_version = decode_cuda_version_number(13000);
  prober.set_cudnn(std::string(kLib) + "/libcudnn.so.9", answer);
  r = doctor(fs, prober);
  EXPECT_TRUE(r.copy->probe.isolated);
  EXPECT_EQ(r.copy->library_version.str(), "9.19.0");
  EXPECT_TRUE(r.ids.empty());
}

TEST(DoctorWithFakeProber, ProbeThatCrashedOrFailed) {
  MemoryFileSystem fs;
  add_toolkit_with_cudnn(fs);
  FakeProber prober;
  LibraryProbe crashed;
  crashed.failure = "loading libcudnn.so.9: the probe process was killed by signal 6 (SIGABRT) (crashed)";
  prober.set_cudnn(std::string(kLib) + "/libcudnn.so.9", crashed);
  DoctorRun r = doctor(fs, prober);
  EXPECT_EQ(r.ids, std::vector<std::string>{"cudnn.load_crashed"});
  ASSERT_NE(r.copy, nullptr);
  EXPECT_EQ(r.copy->library_version_source, "") << "no version from a probe that did not answer";

  FakeProber unknown;  // told nothing: the library does not load
  EXPECT_EQ(doctor(fs, unknown).ids, std::vector<std::string>{"cudnn.load_failed"});
}

// What doctor reports, in the order it reports it: enough to tell two runs apart.
std::vector<std::string> summary_of(const DoctorOutcome& o) {
  std::vector<std::string> out = {"rules " + o.report.rules_version};
  for (const auto& c : o.report.copies) out.push_back("copy " + c.lib_dir + " " + c.library_version.str());
  for (const auto& f : o.report.findings) out.push_back("finding " + f.id + " " + f.subject + " " + f.title);
  for (const auto& w : o.plain_program) out.push_back("plain " + w.library + " -> " + w.resolution.path);
  return out;
}

std::atomic<int> beside_runs{0};
void run_on_a_thread_of_its_own(std::function<void()> work) {
  ++beside_runs;
  std::thread(std::move(work)).detach();
}

// The built-in rules asked for only at the checks (app/commands/doctor_runner.cc parses them
// beside doctor meanwhile) and doctor's own side work run wherever DoctorInputs::run_beside puts
// it: the report is the same as with everything at hand. A table given instead is the one the
// checks use.
TEST(DoctorWithFakeProber, BuiltinRulesAskedForLateAndWorkRunBesideGiveTheSameReport) {
  MemoryFileSystem fs;
  add_toolkit_with_cudnn(fs);
  FakeProber prober;
  prober.set_cudnn_loaded(std::string(kLib) + "/libcudnn.so.9", 91400, 13000);  // a finding: 9.14 != 9.19
  Environment env = linux_env();
  DoctorInputs at_hand{fs, env, prober, builtin_rules()};
  std::vector<std::string> expected = summary_of(run_doctor_full(at_hand));
  ASSERT_GT(expected.size(), 3u);

  FakeProber again;
  again.set_cudnn_loaded(std::string(kLib) + "/libcudnn.so.9", 91400, 13000);
  DoctorInputs later{fs, env, again, DoctorRules::builtin()};
  later.run_beside = run_on_a_thread_of_its_own;
  const int before = beside_runs.load();
  EXPECT_EQ(summary_of(run_doctor_full(later)), expected);
  EXPECT_EQ(beside_runs.load(), before + 1) << "the plain program's model ran beside doctor";

  Rules given = builtin_rules();
  given.data_version = "given-table";
  FakeProber third;
  third.set_cudnn_loaded(std::string(kLib) + "/libcudnn.so.9", 91400, 13000);
  DoctorInputs with_given{fs, env, third, given};
  EXPECT_EQ(run_doctor_full(with_given).report.rules_version, "given-table");

  // Without a cuDNN 9 copy the early model's answer is never asked for: doctor still waits for it
  // before its inputs go, and reports as it does with everything at hand.
  MemoryFileSystem empty;
  FakeProber none, none_again;
  DoctorInputs plain{empty, env, none, builtin_rules()};
  std::vector<std::string> nothing = summary_of(run_doctor_full(plain));
  DoctorInputs beside{empty, env, none_again, builtin_rules()};
  beside.run_beside = run_on_a_thread_of_its_own;
  EXPECT_EQ(summary_of(run_doctor_full(beside)), nothing);
}

}  // namespace
}  // namespace cudnnup
