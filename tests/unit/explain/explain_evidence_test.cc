// What issue 19 added to `cudnnup explain`: log records kept whole, facts read from the whole log,
// causes moved by the evidence in the log (with the reason said), a log from another machine
// judged by itself, messages folded into the one they follow, and the checks the real-log corpus
// asked for. The messages are rebuilt from the frameworks' formats (not verbatim posts) unless a
// test names its source.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/strings.h"
#include "explain/explain.h"
#include "explain/log_records.h"
#include "explain/needle_scanner.h"
#include "support/explain_reports.h"

namespace cudnnup {
namespace {

using testing::catalogue;

// The explanation of `id` as its own entry (not folded into another).
const Explanation* matched_as_itself(const ExplainReport& r, const std::string& id) {
  for (const auto& m : r.matches) {
    if (m.entry->id == id) return &m;
  }
  return nullptr;
}

const RankedCause* cause_of(const Explanation* e, const std::string& check) {
  if (!e) return nullptr;
  for (const auto& c : e->causes) {
    if (c.check == check) return &c;
  }
  return nullptr;
}

std::string var(const Explanation* e, const std::string& name) {
  if (!e) return "";
  auto it = e->variables.find(name);
  return it == e->variables.end() ? "" : it->second;
}

CudnnCopy copy_at(const std::string& dir, Version v, const std::string& via, int cuda_major = 12) {
  CudnnCopy c;
  c.root = c.lib_dir = dir;
  c.library_version = v;
  c.found_via = {via};
  c.cuda_major = cuda_major;
  CudnnLibrary shim;
  shim.component = "cudnn";
  shim.path = dir + "/libcudnn.so." + std::to_string(v.major());
  c.libraries.push_back(shim);
  return c;
}

Report linux_machine() {
  Report r;
  r.os = "linux";
  r.driver.present = true;
  r.driver.version_text = "580.95.05";
  r.driver.cuda_version = Version{13, 0};
  r.driver.gpus.push_back(Gpu{0, "NVIDIA H200", Version{9, 0}, 150ull << 30});
  return r;
}

// --- records ---------------------------------------------------------------------------------

TEST(ExplainRecords, TimestampsTracebacksAndBlankLinesStartRecords) {
  LogLines lines = normalise_log(
      "2024-06-19 16:06:44.996032: W tensorflow/tsl/dso_loader.cc:60] Could not load dynamic library 'x.so.1';\n"
      "dlerror: x.so.1: cannot open shared object file\n"
      "2024-06-19 16:06:44.996089: I tensorflow/tsl/dso_loader.cc:49] Successfully opened dynamic library y.so\n"
      "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so.\n"
      "Traceback (most recent call last):\n"
      "  File \"a.py\", line 3, in <module>\n"
      "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED\n"
      "\n"
      "a wrapped tail\n");
  ASSERT_EQ(lines.size(), 9u);
  EXPECT_EQ(lines.starts_record, (std::vector<bool>{true, false, true, true, true, true, true, true, false}));
  EXPECT_EQ(lines.text[3], "Couldn't open CUDA library libcudnn.so.") << "TensorFlow 0.x's prefix has no timestamp";
}

TEST(ExplainRecords, TypographicQuotesAndMarkdownBackticksAreRead) {
  LogLines lines = normalise_log("`2020-11-25 09:06:12.391615: E tensorflow/x.cc:328] A`\n\xE2\x80\x9C" "B \xE2\x80\x98" "c\xE2\x80\x99\xE2\x80\x9D");
  EXPECT_EQ(lines.text, (std::vector<std::string>{"A", "\"B 'c'\""}));
  EXPECT_TRUE(lines.starts_record[0]);
}

// TensorFlow names the library it opened and, after dlerror, the file the loader missed: a
// dependency (NVIDIA/tensorflow#110's libcusolver.so.11 needing libnvJitLink.so.12). The next
// timestamped record is not swallowed into the message.
TEST(ExplainRecords, TensorFlowDependencyIsBlamedAndTheNextRecordIsNotSwallowed) {
  auto r = explain_text(
      "2024-06-19 16:06:44.996032: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
      "dynamic library 'libcusolver.so.11'; dlerror: libnvJitLink.so.12: cannot open shared object file: No such file "
      "or directory\n"
      "2024-06-19 16:06:44.996089: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] Successfully opened "
      "dynamic library libcusparse.so.11\n",
      catalogue(), MachineView{});
  const Explanation* e = matched_as_itself(r, "tf.could_not_load_dynamic_library");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->lines, std::vector<int>{1});
  EXPECT_EQ(var(e, "lib"), "libcusolver.so.11");
  EXPECT_EQ(var(e, "dependency"), "libnvJitLink.so.12");
  EXPECT_EQ(var(e, "cuda_major"), "12");
  EXPECT_EQ(var(e, "detail").find("libcusparse"), std::string::npos) << var(e, "detail");
  ASSERT_FALSE(e->causes.empty());
  EXPECT_EQ(e->causes.front().check, "cuda_library_absent");
  EXPECT_NE(e->causes.front().text.find("libnvJitLink.so.12"), std::string::npos) << e->causes.front().text;
  EXPECT_NE(e->causes.front().reason.find("libnvJitLink.so.12"), std::string::npos) << e->causes.front().reason;
}

TEST(ExplainRecords, AWrappedMessageIsReadWholeButNotAcrossARecord) {
  // Paddle's Windows note spans four lines of one record; a timestamped line after it is another.
  auto r = explain_text(
      "W0521 10:02:11.204518  6120 dynamic_loader.cc:238] Note: [Recommend] copy cudnn into CUDA installation directory. \n"
      " For instance, download cudnn-10.0-windows10-x64-v7.6.5.32.zip from NVIDIA's official website, \n"
      "then, unzip it and copy it into C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v10.0\n",
      catalogue(), MachineView{});
  const Explanation* e = matched_as_itself(r, "paddle.copy_cudnn_into_cuda_note");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(var(e, "example"), "cudnn-10.0-windows10-x64-v7.6.5.32.zip");
  auto split = explain_text(
      "2024-05-21 10:02:11.204518: W x.cc:1] Note: [Recommend] copy cudnn into CUDA installation directory.\n"
      "2024-05-21 10:02:11.204519: W x.cc:1] For instance, download cudnn-10.0-windows10-x64-v7.6.5.32.zip\n",
      catalogue(), MachineView{});
  ASSERT_NE(matched_as_itself(split, "paddle.copy_cudnn_into_cuda_note"), nullptr);
  EXPECT_EQ(var(matched_as_itself(split, "paddle.copy_cudnn_into_cuda_note"), "example"), "") << "two records are not one message";
}

TEST(ExplainRecords, UndefinedSymbolWithAStraySpaceBeforeTheColon) {
  auto r = explain_text("OSError: /usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8 :undefined symbol: _ZN5cudnn3cnn5inferE",
                        catalogue(), MachineView{});
  const Explanation* e = matched_as_itself(r, "cudnn.undefined_symbol");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(var(e, "lib"), "libcudnn_cnn_infer.so.8");
}

// --- the automaton ------------------------------------------------------------------------------

TEST(NeedleScanner, FindsEveryNeedleOnceAtEachPlaceIncludingOverlaps) {
  NeedleScanner s({"he", "she", "his", "hers"});
  std::vector<std::pair<int, size_t>> hits;
  s.scan("ushers his", [&hits](int n, size_t at) { hits.emplace_back(n, at); });
  EXPECT_EQ(hits, (std::vector<std::pair<int, size_t>>{{1, 1}, {0, 2}, {3, 2}, {2, 7}}));
  NeedleScanner none(std::vector<std::string>{});
  none.scan("anything", [](int, size_t) { ADD_FAILURE() << "no needle, no hit"; });
  none.scan_lines({"anything"}, [](int, bool, size_t) { ADD_FAILURE() << "no needle, no hit"; });
}

// scan_lines reads the lines as the two joined, lower-cased texts explain searched before it
// (built and scanned one after the other): the same hits, in the same order within each text.
TEST(NeedleScanner, LinesReadAsBothJoinedTextsWithoutBuildingThem) {
  NeedleScanner s({"load library", "cuda-capable", "no cuda", "he", "she", "hers", "a b", "x"});
  const std::vector<std::vector<std::string>> logs = {
      {"Could not LOAD", "library x.so", "no CUDA-", "capable device"},
      {"", "ushE", "rs a", "b", "", "x"},
      {"no cu", "", "da", "load library load library"},
      {"x"},
  };
  for (const auto& lines : logs) {
    using Hit = std::pair<int, size_t>;
    std::vector<Hit> spaced, tight, want_spaced, want_tight;
    s.scan_lines(lines, [&](int n, bool cut, size_t at) { (cut ? tight : spaced).emplace_back(n, at); });
    std::string spaced_text, tight_text;
    for (const auto& l : lines) {
      spaced_text += ascii_lower(l) + " ";
      tight_text += ascii_lower(l);
    }
    s.scan(spaced_text, [&](int n, size_t at) { want_spaced.emplace_back(n, at); });
    s.scan(tight_text, [&](int n, size_t at) { want_tight.emplace_back(n, at); });
    EXPECT_EQ(spaced, want_spaced) << spaced_text;
    EXPECT_EQ(tight, want_tight) << tight_text;
    EXPECT_FALSE(want_tight.empty()) << "each log has a hit";
  }
  // Upper case in the text reads as lower case; the needles are read in lower case too.
  NeedleScanner upper({"CuDNN"});
  int hits = 0;
  upper.scan("libCUDNN cudnn", [&hits](int, size_t) { ++hits; });
  EXPECT_EQ(hits, 2);
}

TEST(ExplainRecords, JoinedLinesTellTheLineOfAnOffset) {
  const std::vector<std::string> lines = {"ab", "", "cde"};
  const JoinedLines spaced(lines, 1), tight(lines, 0);
  // spaced: "ab c" ... = "ab" ' ' "" ' ' "cde" ' '; tight: "abcde"
  EXPECT_EQ(spaced.locate(0), (std::pair<int, size_t>{0, 0}));
  EXPECT_EQ(spaced.locate(2), (std::pair<int, size_t>{0, 2})) << "the space after a line is the end of that line";
  EXPECT_EQ(spaced.locate(3), (std::pair<int, size_t>{1, 0}));
  EXPECT_EQ(spaced.locate(5), (std::pair<int, size_t>{2, 1}));
  EXPECT_EQ(tight.locate(2), (std::pair<int, size_t>{2, 0})) << "an empty line takes no place";
  EXPECT_EQ(tight.locate(4), (std::pair<int, size_t>{2, 2}));
}

// --- facts and evidence -------------------------------------------------------------------------

TEST(ExplainEvidence, MemoryFiguresMoveTheHandleCauses) {
  const char* plenty =
      "2023-05-20 20:08:18.894443: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:439] Could not create cudnn handle: "
      "CUDNN_STATUS_INTERNAL_ERROR\n"
      "2023-05-20 20:08:18.894540: E external/xla/xla/stream_executor/cuda/cuda_dnn.cc:443] Memory usage: 3221225472 bytes "
      "free, 8589934592 bytes total.\n";
  auto r = explain_text(plenty, catalogue(), MachineView{});
  EXPECT_EQ(r.facts.at("free_mib"), "3072");
  EXPECT_EQ(r.facts.at("free_percent"), "37");
  const Explanation* e = matched_as_itself(r, "xla.could_not_create_cudnn_handle");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->causes.front().check, "cudnn_install_broken");
  EXPECT_EQ(e->causes.front().reason.rfind("Ranked first because the log says 3072 MiB of the GPU's 8192 MiB", 0), 0u)
      << e->causes.front().reason;
  const RankedCause* memory = cause_of(e, "gpu_memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_LT(memory->score, 50) << "lowered by the free memory";
  EXPECT_EQ(memory->reason.rfind("Lowered because the log says", 0), 0u) << memory->reason;

  std::string low = plenty;
  low.replace(low.find("3221225472"), 10, "201326592");  // 192 MiB free
  auto r2 = explain_text(low, catalogue(), MachineView{});
  EXPECT_EQ(matched_as_itself(r2, "xla.could_not_create_cudnn_handle")->causes.front().check, "gpu_memory");
}

TEST(ExplainEvidence, TheDirectionOfAVersionMismatchDecides) {
  const char* newer = "Loaded runtime CuDNN library: 7301 (compatibility version 7300) but source was compiled with 7003 "
                      "(compatibility version 7000).";
  const char* older = "Loaded runtime CuDNN library: 7005 (compatibility version 7000) but source was compiled with 7101 "
                      "(compatibility version 7100)";
  auto rn = explain_text(newer, catalogue(), MachineView{});
  const Explanation* n = matched_as_itself(rn, "xla.loaded_runtime_cudnn_mismatch");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(var(n, "direction"), "newer");
  EXPECT_EQ(n->causes.front().check, "cudnn_newer_than_built");
  EXPECT_NE(n->causes.front().reason.find("newer than the 7.0.3"), std::string::npos) << n->causes.front().reason;
  auto ro = explain_text(older, catalogue(), MachineView{});
  const Explanation* o = matched_as_itself(ro, "xla.loaded_runtime_cudnn_mismatch");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(var(o, "direction"), "older");
  EXPECT_EQ(o->causes.front().check, "cudnn_older_than_required");
  // Caffe2 across majors: two copies installed, the newer found first.
  auto rc = explain_text("RuntimeError: [enforce fail at common_cudnn.h:118] version_match. cuDNN compiled (6021) and "
                         "runtime (7003) versions mismatch",
                         catalogue(), MachineView{});
  const Explanation* c = matched_as_itself(rc, "caffe2.cudnn_compiled_runtime_mismatch");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(var(c, "direction"), "newer_major");
  EXPECT_EQ(c->causes.front().check, "cudnn_newer_than_built");
}

TEST(ExplainEvidence, WindowsErrorCodesRankTheirCauses) {
  auto code = [](const char* n) {
    return std::string("Could not load library cudnn_cnn_infer64_8.dll. Error code ") + n +
           "\nPlease make sure cudnn_cnn_infer64_8.dll is in your library path!";
  };
  auto first = [&](const char* n) {
    auto r = explain_text(code(n), catalogue(), MachineView{});
    const Explanation* e = matched_as_itself(r, "cudnn8.windows_sublibrary_load_failed");
    return e && !e->causes.empty() ? e->causes.front().check : std::string("none");
  };
  EXPECT_EQ(first("193"), "dll_wrong_machine") << "193 is a wrong-machine DLL, not a missing one";
  EXPECT_EQ(first("127"), "cudnn_mixed_versions");
  EXPECT_EQ(first("126"), "cudnn_major_absent");
  auto zlib = explain_text("Could not load library zlibwapi.dll. Error code 193. Please verify that the library is built "
                           "correctly for your processor architecture (32-bit, 64-bit)",
                           catalogue(), MachineView{});
  ASSERT_NE(matched_as_itself(zlib, "cudnn8.zlibwapi_missing"), nullptr);
  EXPECT_EQ(matched_as_itself(zlib, "cudnn8.zlibwapi_missing")->causes.front().check, "dll_wrong_machine");
}

TEST(ExplainEvidence, PossiblyInsufficientDriverWithACapitalPIsEvidenceAndFolded) {
  for (const char* p : {"Possibly", "possibly"}) {
    std::string log = std::string("2019-07-11 01:37:25.413701: E tensorflow/stream_executor/cuda/cuda_dnn.cc:353] Could not "
                                  "create cudnn handle: CUDNN_STATUS_NOT_INITIALIZED\n"
                                  "2019-07-11 01:37:25.413830: E tensorflow/stream_executor/cuda/cuda_dnn.cc:361] ") +
                      p + " insufficient driver version: 384.183.0\n";
    auto r = explain_text(log, catalogue(), MachineView{});
    SCOPED_TRACE(p);
    EXPECT_EQ(r.facts.at("driver_version"), "384.183.0");
    EXPECT_EQ(r.facts.at("driver_cuda"), "9.0") << "rules.json: CUDA 9.0 needs 384.81";
    const Explanation* e = matched_as_itself(r, "xla.could_not_create_cudnn_handle");
    ASSERT_NE(e, nullptr);
    auto folded = std::find_if(e->folded.begin(), e->folded.end(),
                               [](const auto& f) { return f.first->id == "xla.possibly_insufficient_driver"; });
    ASSERT_NE(folded, e->folded.end()) << "the driver line is recognised, and explained by the handle message";
    EXPECT_EQ(folded->second, 2);
    EXPECT_EQ(e->causes.front().check, "driver_too_old");
    EXPECT_NE(e->causes.front().reason.find("384.183.0"), std::string::npos) << e->causes.front().reason;
  }
}

TEST(ExplainEvidence, NonContiguousInputLeadsToContiguousAndNoBatchAdvice) {
  auto r = explain_text("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a "
                        "non-contiguous input.",
                        catalogue(), MachineView{});
  const Explanation* e = matched_as_itself(r, "pytorch.cudnn_error_status");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->causes.front().text.find(".contiguous()"), std::string::npos) << e->causes.front().text;
  bool contiguous_fix = std::any_of(e->fixes.begin(), e->fixes.end(), [](const FilledFix& f) {
    return f.text.find("contiguous") != std::string::npos;
  });
  EXPECT_TRUE(contiguous_fix);
  auto mismatch = explain_text("cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", catalogue(), MachineView{});
  const Explanation* m = matched_as_itself(mismatch, "pytorch.cudnn_error_status");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->causes.front().check, "cudnn_mixed_versions");
  for (const auto& f : m->fixes) EXPECT_EQ(f.text.find("batch"), std::string::npos) << "no memory advice for a version mix: " << f.text;
}

TEST(ExplainEvidence, ExecutionFailedLeadsWithMemoryOrAnIllegalAccess) {
  auto plain = explain_text("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", catalogue(), MachineView{});
  EXPECT_EQ(matched_as_itself(plain, "pytorch.cudnn_error_status")->causes.front().check, "gpu_memory");
  auto illegal = explain_text("RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n"
                              "RuntimeError: CUDA error: an illegal memory access was encountered",
                              catalogue(), MachineView{});
  const Explanation* e = matched_as_itself(illegal, "pytorch.cudnn_error_status");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->causes.front().check, "not_checkable");
  EXPECT_NE(e->causes.front().text.find("illegal memory access"), std::string::npos);
  auto paddle = explain_text("OSError: (External) CUDNN error(7), CUDNN_STATUS_MAPPING_ERROR.", catalogue(), MachineView{});
  ASSERT_NE(matched_as_itself(paddle, "paddle.cudnn_error_code"), nullptr);
  EXPECT_FALSE(matched_as_itself(paddle, "paddle.cudnn_error_code")->causes.empty()) << "MAPPING_ERROR has causes";
}

// --- another machine ------------------------------------------------------------------------------

TEST(ExplainMachine, AWindowsLogOnLinuxIsRankedByTheLogAlone) {
  Report here = linux_machine();
  MachineView view{&here, nullptr};
  auto r = explain_text("Could not locate cudnn_ops_infer64_8.dll. Please make sure it is in your library path!", catalogue(), view);
  EXPECT_NE(r.machine_set_aside.find("windows"), std::string::npos) << r.machine_set_aside;
  for (const auto& c : r.matches.at(0).causes) {
    EXPECT_EQ(c.verdict, Verdict::kUnknown) << c.check << ": " << c.evidence;
    EXPECT_EQ(c.evidence.rfind("Not checked here: the log is from windows", 0), 0u) << c.evidence;
  }
  auto same = explain_text("Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open "
                           "shared object file: No such file or directory",
                           catalogue(), view);
  EXPECT_EQ(same.machine_set_aside, "");
  EXPECT_EQ(same.matches.at(0).causes.front().verdict, Verdict::kHolds) << "no cuDNN 8 here";
}

// A log that names a Linux library and a Windows DLL has no sure platform, in either order: the
// machine stays in play for the Linux line (the catalogue's first platform fact used to win).
TEST(ExplainMachine, ALogShowingBothPlatformsSetsNeitherAside) {
  Report here = linux_machine();
  MachineView view{&here, nullptr};
  const std::string linux_line = "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: cannot "
                                 "open shared object file: No such file or directory\n";
  const std::string windows_line = "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n";
  for (const std::string& log : {linux_line + windows_line, windows_line + linux_line}) {
    auto r = explain_text(log, catalogue(), view);
    EXPECT_EQ(r.machine_set_aside, "") << log;
    EXPECT_EQ(r.facts.count("platform"), 0u) << log;
  }
  // The DLL's message itself is still ranked by the log alone; the Linux one by this machine.
  auto both = explain_text(linux_line + windows_line, catalogue(), view);
  ASSERT_EQ(both.matches.size(), 2u);
  const Explanation& so = both.matches.at(0);
  const Explanation& dll = both.matches.at(1);
  EXPECT_EQ(so.machine_set_aside, "");
  EXPECT_EQ(so.causes.front().verdict, Verdict::kHolds) << so.causes.front().evidence;
  EXPECT_EQ(dll.machine_set_aside, "this message is from windows and this machine runs linux");
  for (const auto& c : dll.causes) {
    EXPECT_EQ(c.verdict, Verdict::kUnknown) << c.check << ": " << c.evidence;
    EXPECT_EQ(c.evidence.rfind("Not checked here: this message is from windows", 0), 0u) << c.evidence;
  }
  EXPECT_EQ(explain_text(windows_line, catalogue(), MachineView{}).facts.at("platform"), "windows");
  EXPECT_EQ(explain_text(linux_line, catalogue(), MachineView{}).facts.at("platform"), "linux");
}

TEST(ExplainMachine, AGpuInTheLogThatThisMachineLacksSetsTheMachineAside) {
  Report none = linux_machine();
  none.driver.gpus.clear();
  const char* log = "2023-05-20 20:08:18.894443: E cuda_dnn.cc:439] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n"
                    "2023-05-20 20:08:18.894540: E cuda_dnn.cc:443] Memory usage: 707198976 bytes free, 4231397376 bytes total.\n";
  auto r = explain_text(log, catalogue(), MachineView{&none, nullptr});
  EXPECT_NE(r.machine_set_aside.find("GPU"), std::string::npos) << r.machine_set_aside;
  Report other = linux_machine();  // an H200, compute capability 9.0
  auto sm86 = explain_text("NVIDIA GeForce RTX 3080 Laptop GPU with CUDA capability sm_86 is not compatible with the current "
                           "PyTorch installation.",
                           catalogue(), MachineView{&other, nullptr});
  EXPECT_EQ(sm86.facts.at("gpu_cc"), "8.6");
  EXPECT_NE(sm86.machine_set_aside.find("8.6"), std::string::npos) << sm86.machine_set_aside;
}

// --- checks the corpus asked for -------------------------------------------------------------------

TEST(ExplainChecks, NewerThanBuiltAndInstallBrokenFollowTheMachine) {
  const char* newer = "Loaded runtime CuDNN library: 7301 (compatibility version 7300) but source was compiled with 7003";
  Report r = linux_machine();
  r.copies.push_back(copy_at("/usr/local/cuda/lib64", Version{7, 3, 1}, "ld.so.cache", 9));
  auto holds = explain_text(newer, catalogue(), MachineView{&r, nullptr});
  const RankedCause* c = cause_of(matched_as_itself(holds, "xla.loaded_runtime_cudnn_mismatch"), "cudnn_newer_than_built");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, Verdict::kHolds) << c->evidence;
  Report fixed = linux_machine();
  fixed.copies.push_back(copy_at("/usr/local/cuda/lib64", Version{7, 0, 5}, "ld.so.cache", 9));
  auto ruled = explain_text(newer, catalogue(), MachineView{&fixed, nullptr});
  EXPECT_EQ(cause_of(matched_as_itself(ruled, "xla.loaded_runtime_cudnn_mismatch"), "cudnn_newer_than_built")->verdict,
            Verdict::kDoesNotHold);

  const char* handle = "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR";
  Report broken = linux_machine();
  broken.copies.push_back(copy_at("/usr/lib/x86_64-linux-gnu", Version{9, 1, 0}, "ld.so.cache"));
  broken.copies[0].probe.attempted = true;
  broken.copies[0].probe.failure = "libcudnn_graph.so.9: cannot open shared object file";
  auto b = explain_text(handle, catalogue(), MachineView{&broken, nullptr});
  const RankedCause* ib = cause_of(matched_as_itself(b, "xla.could_not_create_cudnn_handle"), "cudnn_install_broken");
  ASSERT_NE(ib, nullptr);
  EXPECT_EQ(ib->verdict, Verdict::kHolds);
  EXPECT_NE(ib->evidence.find("libcudnn_graph"), std::string::npos);
  broken.copies[0].probe.loaded = true;
  broken.copies[0].probe.version = Version{9, 1, 0};
  auto ok = explain_text(handle, catalogue(), MachineView{&broken, nullptr});
  EXPECT_EQ(cause_of(matched_as_itself(ok, "xla.could_not_create_cudnn_handle"), "cudnn_install_broken")->verdict, Verdict::kDoesNotHold);
}

TEST(ExplainChecks, ABuildOlderThanTheGpusArchitecture) {
  Report r = linux_machine();
  r.driver.gpus = {Gpu{0, "GeForce RTX 2070", Version{7, 5}, 8ull << 30}};
  Toolkit t;
  t.version = Version{9, 0};
  t.root = "/usr/local/cuda-9.0";
  r.toolkits.push_back(t);
  auto e = explain_text("cuDNN Error: CUDNN_STATUS_EXECUTION_FAILED", catalogue(), MachineView{&r, nullptr});
  const Explanation* m = matched_as_itself(e, "pytorch.cudnn_error_status");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->causes.front().check, "cuda_build_predates_gpu");
  EXPECT_NE(m->causes.front().evidence.find("10.0"), std::string::npos) << "rules.json: Turing from CUDA 10.0";
  r.toolkits[0].version = Version{10, 0};
  auto ok = explain_text("cuDNN Error: CUDNN_STATUS_EXECUTION_FAILED", catalogue(), MachineView{&r, nullptr});
  EXPECT_EQ(cause_of(matched_as_itself(ok, "pytorch.cudnn_error_status"), "cuda_build_predates_gpu")->verdict, Verdict::kDoesNotHold);
}

TEST(ExplainChecks, OldTensorFlowNeedsTheUnversionedLink) {
  const char* log = "I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. LD_LIBRARY_PATH: /x\n";
  Report r = linux_machine();
  r.copies.push_back(copy_at("/usr/lib/x86_64-linux-gnu", Version{4}, "ld.so.cache", 7));
  auto without = explain_text(log, catalogue(), MachineView{&r, nullptr});
  const Explanation* e = matched_as_itself(without, "tf.could_not_load_dynamic_library");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(var(e, "lib"), "libcudnn.so");
  EXPECT_EQ(e->causes.front().check, "cudnn_unversioned_symlink_missing");
  EXPECT_EQ(e->causes.front().verdict, Verdict::kHolds);
  CudnnLibrary link;
  link.component = "cudnn";
  link.path = "/usr/lib/x86_64-linux-gnu/libcudnn.so";
  r.copies[0].libraries.push_back(link);
  auto with = explain_text(log, catalogue(), MachineView{&r, nullptr});
  EXPECT_EQ(cause_of(matched_as_itself(with, "tf.could_not_load_dynamic_library"), "cudnn_unversioned_symlink_missing")->verdict,
            Verdict::kDoesNotHold);
}

// --- fixes -----------------------------------------------------------------------------------------

TEST(ExplainFixes, OldCudnnIsNeverOfferedWithACudaBuildThatDoesNotExist) {
  Variables v{{"required", "7101"}, {"found", "7005"}, {"cuda_major", "12"}};
  derive_variables(v, catalogue());
  EXPECT_EQ(v["required"], "7.1.1");
  EXPECT_EQ(v.count("release"), 0u) << "NVIDIA publishes no cuDNN 7.1 for CUDA 12";
  EXPECT_NE(v["builds"].find("7.6.5 for CUDA 10.2"), std::string::npos) << v["builds"] << " (the cuDNN 7 archive known)";
  Variables nine{{"required", "9.1.0"}, {"cuda_major", "12"}};
  derive_variables(nine, catalogue());
  EXPECT_EQ(nine["release"], "9.1.0");
  EXPECT_NE(nine["builds"].find("CUDA 13 from 9.12.0"), std::string::npos) << nine["builds"];
  Variables eight{{"required", "8.9.7"}, {"cuda_major", "13"}};
  derive_variables(eight, catalogue());
  EXPECT_EQ(eight.count("release"), 0u) << "there is no cuDNN 8 for CUDA 13";
}

}  // namespace
}  // namespace cudnnup
