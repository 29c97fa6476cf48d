// `cudnnup explain` logic: the catalogue data, matching real user logs (tests/data/explain, each
// with its source URL), variable extraction, and causes ranked by hand-built machine states.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "explain/explain.h"
#include "facts/finding_ids.h"
#include "support/explain_corpus.h"
#include "support/explain_reports.h"

namespace cudnnup {
namespace {

using testing::catalogue;
using testing::find_match;

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

struct LogCase {
  std::string name, source, text;
  std::vector<std::string> expect, absent;
};

// tests/data/explain/*.log: "#@ source: URL", "#@ expect: id, id", "#@ absent: id" and optional
// "#@ note: ..." headers (a note marks logs reconstructed from the framework's message format), then
// the log as the user posted it.
std::string logs_dir() { return std::string(CUDNNUP_SOURCE_DIR) + "/tests/data/explain"; }

std::vector<LogCase> load_logs() {
  std::vector<LogCase> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(logs_dir(), ec)) return out;  // e.g. a cross-built binary under Wine
  for (const auto& f : std::filesystem::directory_iterator(logs_dir())) {
    if (f.path().extension() != ".log") continue;
    LogCase c;
    c.name = f.path().filename().string();
    std::ifstream in(f.path(), std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("#@ source: ", 0) == 0) c.source = line.substr(11);
      else if (line.rfind("#@ expect: ", 0) == 0) c.expect = split_list(line.substr(11));
      else if (line.rfind("#@ absent: ", 0) == 0) c.absent = split_list(line.substr(11));
      else if (line.rfind("#@ ", 0) == 0) continue;  // "#@ note: ..." and other headers
      else c.text += line + "\n";
    }
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const LogCase& a, const LogCase& b) { return a.name < b.name; });
  return out;
}

// An entry is recognised as its own match, or folded into the match it follows or that replaces
// it (a generic status explained by the framework's own message).
std::set<std::string> matched_ids(const ExplainReport& r) {
  std::set<std::string> ids;
  for (const auto& m : r.matches) {
    ids.insert(m.entry->id);
    for (const auto& [entry, line] : m.folded) ids.insert(entry->id);
  }
  return ids;
}

std::string ids_text(const std::set<std::string>& ids) {
  std::string s;
  for (const auto& i : ids) s += i + " ";
  return s;
}

// --- the catalogue ---------------------------------------------------------------------------

TEST(ErrorCatalogue, EveryEntryHasSourcesMeaningFixesAndCompiledPatterns) {
  const auto& cat = catalogue();
  ASSERT_GE(cat.entries.size(), 50u);
  for (const auto& e : cat.entries) {
    SCOPED_TRACE(e.id);
    EXPECT_FALSE(e.title.empty());
    EXPECT_FALSE(e.meaning.empty());
    ASSERT_FALSE(e.sources.empty());
    for (const auto& s : e.sources) EXPECT_EQ(s.rfind("https://", 0), 0u) << s;
    ASSERT_FALSE(e.fixes.empty());
    for (const auto& f : e.fixes) EXPECT_FALSE(f.text.empty());
    EXPECT_FALSE(e.patterns.empty());
    EXPECT_FALSE(e.needles.empty());
    if (e.severity != MessageSeverity::kHarmless) {
      EXPECT_FALSE(e.causes.empty()) << "a problem needs causes";
    }
    for (const auto& c : e.causes) EXPECT_TRUE(is_known_check(c.check)) << c.check;
  }
  // They compile on first use at run time; here every one is compiled.
  EXPECT_EQ(cat.first_bad_regex(), "") << "a regex of the catalogue does not compile";
}

// --version reads the data version without compiling the catalogue; both must say the same.
TEST(ErrorCatalogue, VersionReadAloneIsTheParsedCatalogues) {
  ASSERT_TRUE(builtin_error_catalogue());
  EXPECT_FALSE(builtin_error_catalogue_version().empty());
  EXPECT_EQ(builtin_error_catalogue_version(), builtin_error_catalogue()->data_version);
}

TEST(ErrorCatalogue, NamesEveryCudnnStatusOf8xAnd9x) {
  const auto& cat = catalogue();
  // Every status of the 8.x (cudnn_ops_infer.h) and 9.x (cudnn_graph.h) headers, with its codes.
  const std::vector<std::tuple<std::string, int, int>> expected = {
      {"CUDNN_STATUS_NOT_INITIALIZED", 1, 1001}, {"CUDNN_STATUS_ALLOC_FAILED", 2, 4003},
      {"CUDNN_STATUS_BAD_PARAM", 3, 2000}, {"CUDNN_STATUS_INTERNAL_ERROR", 4, 4000},
      {"CUDNN_STATUS_INVALID_VALUE", 5, 2001}, {"CUDNN_STATUS_ARCH_MISMATCH", 6, 3007},
      {"CUDNN_STATUS_MAPPING_ERROR", 7, 4006}, {"CUDNN_STATUS_EXECUTION_FAILED", 8, 5000},
      {"CUDNN_STATUS_NOT_SUPPORTED", 9, 3000}, {"CUDNN_STATUS_LICENSE_ERROR", 10, 1005},
      {"CUDNN_STATUS_RUNTIME_PREREQUISITE_MISSING", 11, 3008}, {"CUDNN_STATUS_RUNTIME_IN_PROGRESS", 12, 1006},
      {"CUDNN_STATUS_RUNTIME_FP_OVERFLOW", 13, 1007}, {"CUDNN_STATUS_VERSION_MISMATCH", 14, 1002},
  };
  for (const auto& [name, c8, c9] : expected) {
    const CudnnStatusInfo* s = cat.status(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->code8, c8) << name;
    EXPECT_EQ(s->code9, c9) << name;
  }
  for (const char* nine : {"CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", "CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED",
                           "CUDNN_STATUS_SERIALIZATION_VERSION_MISMATCH", "CUDNN_STATUS_DEPRECATED",
                           "CUDNN_STATUS_BAD_PARAM_NULL_POINTER", "CUDNN_STATUS_BAD_PARAM_DESCRIPTOR_TYPE",
                           "CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER",
                           "CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE",
                           "CUDNN_STATUS_NOT_SUPPORTED_INVALID_DYNAMIC_SHAPE",
                           "CUDNN_STATUS_INTERNAL_ERROR_COMPILATION_FAILED",
                           "CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED",
                           "CUDNN_STATUS_EXECUTION_FAILED_CURAND"}) {
    const CudnnStatusInfo* s = cat.status(nine);
    ASSERT_NE(s, nullptr) << nine;
    EXPECT_FALSE(s->code8.has_value()) << nine << " does not exist in 8.x";
    EXPECT_TRUE(s->code9.has_value());
  }
  EXPECT_GE(cat.statuses.size(), 54u);
}

TEST(ErrorCatalogue, PatternTranslationNumbersNamedGroups) {
  auto p = compile_pattern(R"(a(?:b)(?<lib>x[(]y)\((?<major>\d+)\)(z)(?=q))");
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->group_names.size(), 4u);  // 0, lib, major, unnamed
  EXPECT_EQ(p->group_names[1], "lib");
  EXPECT_EQ(p->group_names[2], "major");
  EXPECT_EQ(p->group_names[3], "");
  std::smatch m;
  std::string s = "ABX(Y(12)zq";
  ASSERT_NE(p->regex.get(), nullptr);
  ASSERT_TRUE(std::regex_search(s, m, *p->regex.get()));
  EXPECT_EQ(m[1].str(), "X(Y");
  EXPECT_EQ(m[2].str(), "12");

  EXPECT_FALSE(compile_pattern("(?<bad name>x)").ok());
  EXPECT_FALSE(compile_pattern("(?<x>unclosed").ok());
  EXPECT_FALSE(compile_pattern("(?<x").ok());
}

TEST(ErrorCatalogue, RejectsUnknownChecksAndBrokenData) {
  const std::string base = R"({"schema": 1, "statuses": [], "entries": [{"id": "x", "title": "t", "needles": ["n"],
    "patterns": ["n"], "meaning": "m", "severity": "error", "fixes": [{"text": "f"}], "sources": ["https://e"],
    "causes": [{"text": "c", "check": "CHECK", "weight": 1}]}]})";
  auto with = [&](const std::string& check) {
    std::string s = base;
    s.replace(s.find("CHECK"), 5, check);
    return s;
  };
  EXPECT_TRUE(parse_error_catalogue(with("driver_absent"), "t").ok());
  auto bad = parse_error_catalogue(with("no_such_check"), "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("no_such_check"), std::string::npos);
  EXPECT_FALSE(parse_error_catalogue("{", "t").ok());
  EXPECT_FALSE(parse_error_catalogue(R"({"schema": 2})", "t").ok());
}

// --- matching real logs ------------------------------------------------------------------------

TEST(ExplainLogs, RealLogsMatchTheirEntries) {
  auto logs = load_logs();
  if (logs.empty()) GTEST_SKIP() << logs_dir() << " is not readable from this test binary";
  ASSERT_GE(logs.size(), 60u);
  MachineView none;
  for (const auto& log : logs) {
    SCOPED_TRACE(log.name);
    EXPECT_EQ(log.source.rfind("https://", 0), 0u) << "every log names where it was posted";
    ASSERT_FALSE(log.expect.empty());
    for (const std::string& variant : {std::string("lf"), std::string("crlf")}) {
      std::string text = log.text;
      if (variant == "crlf") {
        std::string crlf;
        for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
        text = crlf;
      }
      ExplainReport report = explain_text(text, catalogue(), none);
      auto ids = matched_ids(report);
      for (const auto& id : log.expect) {
        EXPECT_TRUE(ids.count(id)) << variant << ": expected " << id << ", got " << ids_text(ids);
      }
      for (const auto& id : log.absent) {
        bool shown = std::any_of(report.matches.begin(), report.matches.end(), [&id](const Explanation& m) { return m.entry->id == id; });
        EXPECT_FALSE(shown) << variant << ": " << id << " should be superseded (folded into another match)";
      }
    }
  }
}

// A log of tests/data/explain, or a corpus log that is not held out (tests/data/explain/corpus,
// whose held-out part must stay out of the catalogue's examples).
TEST(ExplainLogs, EveryCatalogueEntryHasARealLog) {
  auto logs = load_logs();
  if (logs.empty()) GTEST_SKIP() << logs_dir() << " is not readable from this test binary";
  std::set<std::string> covered;
  for (const auto& log : logs) covered.insert(log.expect.begin(), log.expect.end());
  for (const auto& log : testing::load_corpus()) {
    if (!log.holdout) covered.insert(log.expect.begin(), log.expect.end());
  }
  for (const auto& e : catalogue().entries) EXPECT_TRUE(covered.count(e.id)) << e.id << " has no log in tests/data/explain";
}

TEST(ExplainLogs, NoiseOnlyIsNotRecognised) {
  MachineView none;
  auto r = explain_text("Epoch 1/10\nloss: 0.123 - accuracy: 0.98\nSaving model to ./out\n", catalogue(), none);
  EXPECT_TRUE(r.matches.empty());
  EXPECT_EQ(r.lines_read, 3);
  EXPECT_FALSE(r.has_problem());
}

TEST(ExplainLogs, SeveralErrorsInOneLogComeInOrderAndRepeatsAreCounted) {
  std::string log =
      "\x1b[33mWARNING\x1b[0m starting\n"
      "2023-06-13 09:41:23.145671: W tensorflow/tsl/platform/default/dso_loader.cc:64] Could not load dynamic library "
      "'libcudnn.so.8'; dlerror: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
      "unrelated line\n"
      "E0000 00:00:1751448150.986970   10148 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to register "
      "factory for plugin cuDNN when one has already been registered\n"
      "E0000 00:00:1751448151.986970   10148 cuda_dnn.cc:8579] Unable to register cuDNN factory: Attempting to register "
      "factory for plugin cuDNN when one has already been registered\n"
      "> RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED\n";
  MachineView none;
  auto r = explain_text(log, catalogue(), none);
  ASSERT_EQ(r.matches.size(), 3u) << ids_text(matched_ids(r));
  EXPECT_EQ(r.matches[0].entry->id, "tf.could_not_load_dynamic_library");
  EXPECT_EQ(r.matches[0].lines, std::vector<int>{2});
  EXPECT_EQ(r.matches[1].entry->id, "tf.factory_already_registered");
  EXPECT_EQ(r.matches[1].occurrences, 2);
  EXPECT_EQ(r.matches[1].lines, (std::vector<int>{4, 5}));
  EXPECT_EQ(r.matches[2].entry->id, "pytorch.cudnn_error_status");
  EXPECT_TRUE(r.has_problem());
  // The log prefix is gone from what is shown.
  EXPECT_EQ(r.matches[1].matched_text.rfind("Unable to register cuDNN factory", 0), 0u) << r.matches[1].matched_text;
}

TEST(ExplainLogs, HarmlessOnlyIsSaidToBeHarmless) {
  MachineView none;
  auto r = explain_text(
      "2023-12-05 09:29:18.697209: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:9342] Unable to register "
      "cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered",
      catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].entry->severity, MessageSeverity::kHarmless);
  EXPECT_NE(r.matches[0].meaning.find("does not affect"), std::string::npos);
  EXPECT_TRUE(r.matches[0].causes.empty());
  EXPECT_FALSE(r.has_problem());
}

TEST(ExplainVariables, LibraryNamesVersionsAndStatusesAreDerived) {
  MachineView none;
  auto r = explain_text("Could not load library cudnn_cnn_infer64_8.dll. Error code 126", catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  const auto& v = r.matches[0].variables;
  EXPECT_EQ(v.at("lib"), "cudnn_cnn_infer64_8.dll");
  EXPECT_EQ(v.at("component"), "cnn_infer");
  EXPECT_EQ(v.at("major"), "8");
  EXPECT_EQ(v.at("win_error"), "126");
  EXPECT_EQ(v.at("platform"), "windows");

  r = explain_text("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 10, 2) but found runtime "
                   "version (9, 1, 0). PyTorch already comes bundled with cuDNN.",
                   catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].variables.at("required"), "9.10.2");
  EXPECT_EQ(r.matches[0].variables.at("found"), "9.1.0");
  EXPECT_EQ(r.matches[0].variables.at("major"), "9");
  EXPECT_EQ(r.matches[0].variables.at("framework"), "pytorch");

  r = explain_text("Loaded runtime CuDNN library: 7005 (compatibility version 7000) but source was compiled with 7101",
                   catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].variables.at("found"), "7.0.5");
  EXPECT_EQ(r.matches[0].variables.at("required"), "7.1.1");

  r = explain_text("ERROR: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_NE(r.matches[0].variables.at("status_meaning").find("sub-libraries"), std::string::npos);
  EXPECT_EQ(r.matches[0].variables.at("status_codes"), "9.x: 1002");

  r = explain_text("ERROR: CUDNN_STATUS_MADE_UP_NAME", catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_NE(r.matches[0].meaning.find("not in the cuDNN"), std::string::npos);

  r = explain_text("CUDA backend failed to initialize: Unable to use CUDA because of the following issues with CUDA "
                   "components:\nOutdated cuDNN installation found.\nVersion JAX was built against: 8907\nMinimum supported: "
                   "9100\nInstalled version: 8907\nThe local installation version must be no lower than 9100..",
                   catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].variables.at("required"), "9.1.0") << "JAX's floor, not its build version";
  EXPECT_EQ(r.matches[0].variables.at("found"), "8.9.7");
  EXPECT_EQ(r.matches[0].lines, std::vector<int>{2});

  r = explain_text("found version 11040", catalogue(), none);
  EXPECT_TRUE(r.matches.empty());
  r = explain_text("The NVIDIA driver on your system is too old (found version 11040).", catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].variables.at("driver_cuda_version"), "11.4");

  r = explain_text("FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot "
                   "open shared object file: No such file or directory",
                   catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].variables.at("cuda_major"), "11");
}

// A fuzz find (explain_variables): the digits of a CUDA library name were summed into an int
// without a bound, so "libcudart.so.3333333333" overflowed it.
TEST(ExplainVariables, CudaLibraryNumbersTooLongForAMajorGiveNone) {
  for (const char* lib : {"libcudart.so.33333333333333333333", "cudart64_99999999999.dll", "libcublasLt.so.12345"}) {
    Variables vars{{"lib", lib}};
    derive_variables(vars, catalogue());
    EXPECT_EQ(vars.count("cuda_major"), 0u) << lib;
  }
  for (auto [lib, major] : {std::pair{"libcudart.so.12.0", "12"}, {"cudart64_110.dll", "11"}, {"cublas64_12.dll", "12"}}) {
    Variables vars{{"lib", lib}};
    derive_variables(vars, catalogue());
    EXPECT_EQ(vars["cuda_major"], major) << lib;
  }
}

// --- ranking by machine state -----------------------------------------------------------------

CudnnCopy make_copy(const std::string& lib_dir, Version version, std::vector<std::string> found_via,
                    std::vector<std::string> components, int cuda_major = 12) {
  CudnnCopy c;
  c.root = lib_dir;
  c.lib_dir = lib_dir;
  c.library_version = version;
  c.found_via = std::move(found_via);
  c.cuda_major = cuda_major;
  for (const auto& comp : components) {
    CudnnLibrary lib;
    lib.component = comp;
    lib.major = version.major();
    lib.path = lib_dir + "/libcudnn" + (comp == "cudnn" ? "" : "_" + comp) + ".so." + std::to_string(version.major());
    c.libraries.push_back(lib);
  }
  return c;
}

const std::vector<std::string> kAll9 = {"cudnn", "graph", "ops", "cnn", "adv", "engines_precompiled",
                                        "engines_runtime_compiled", "heuristic"};

Report linux_report() {
  Report r;
  r.os = "linux";
  r.driver.present = true;
  r.driver.version_text = "580.95.05";
  r.driver.cuda_version = Version{13, 0};
  r.driver.gpus.push_back(Gpu{0, "NVIDIA H200", Version{9, 0}, 150ull << 30});
  r.searched_dirs = {"/usr/lib/x86_64-linux-gnu", "/usr/local/cuda/lib64"};
  return r;
}

const RankedCause& top(const ExplainReport& r, const std::string& id) {
  const Explanation* e = find_match(r, id);
  EXPECT_NE(e, nullptr) << ids_text(matched_ids(r));
  static RankedCause empty;
  if (!e || e->causes.empty()) return empty;
  return e->causes.front();
}

const RankedCause* cause(const ExplainReport& r, const std::string& id, const std::string& check) {
  const Explanation* e = find_match(r, id);
  if (!e) return nullptr;
  for (const auto& c : e->causes) {
    if (c.check == check) return &c;
  }
  return nullptr;
}

// A fix names the causes it answers: where the machine shows the first of them, its fixes lead;
// otherwise the catalogue's order stands.
// The fixes `id` prints for `text` on `m`, in order, then "top cause: CHECK".
std::vector<std::string> fixes_then_top_cause(const char* text, const char* id, const MachineView& m) {
  ExplainReport report = explain_text(text, catalogue(), m);
  const Explanation* e = find_match(report, id);
  EXPECT_NE(e, nullptr) << id;
  std::vector<std::string> out;
  if (e) {
    for (const auto& f : e->fixes) out.push_back(f.text);
    if (!e->causes.empty()) out.push_back("top cause: " + e->causes.front().check);
  }
  return out;
}

TEST(ExplainFixes, TheFixForTheCauseThisMachineShowsComesFirst) {
  auto fixes = [](const MachineView& m) {
    return fixes_then_top_cause("could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n",
                                "xla.could_not_create_cudnn_handle", m);
  };
  std::vector<std::string> by_catalogue = fixes(MachineView{});
  ASSERT_GE(by_catalogue.size(), 3u);
  EXPECT_NE(by_catalogue.front().find("grow memory"), std::string::npos) << by_catalogue.front();
  Report r = linux_report();
  MachineView m{&r, nullptr};
  EXPECT_EQ(fixes(m).front(), by_catalogue.front()) << "no cause holds here: the catalogue's order";
  Finding jit;
  jit.id = std::string(finding_id::kDriverJitCacheNotWritable);
  jit.title = "The CUDA JIT cache /home/u/.nv/ComputeCache holds files of another user";
  r.findings.push_back(jit);
  std::vector<std::string> shown = fixes(m);
  EXPECT_EQ(shown.back(), "top cause: cuda_jit_cache_unusable");
  EXPECT_NE(shown.front().find("JIT cache"), std::string::npos) << shown.front();
  EXPECT_EQ(shown.size(), by_catalogue.size()) << "reordered, none dropped";
}

// The shared status fixes say which causes they answer, so every status entry orders them by
// the machine: a driver too old for the cuDNN here puts doctor's check before "free GPU memory".
TEST(ExplainFixes, AStatusErrorOnAMachineWithAnOldDriverLeadsWithTheDriverCheck) {
  auto fixes = [](const MachineView& m) {
    return fixes_then_top_cause("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\n", "pytorch.cudnn_error_status", m);
  };
  std::vector<std::string> by_catalogue = fixes(MachineView{});
  ASSERT_GE(by_catalogue.size(), 2u);
  EXPECT_NE(by_catalogue.front().find("Free GPU memory"), std::string::npos) << by_catalogue.front();
  Report old_driver = linux_report();
  old_driver.driver.version_text = "470.82.01";
  old_driver.driver.cuda_version = Version{11, 4};
  old_driver.copies.push_back(make_copy("/usr/lib/x86_64-linux-gnu", Version{9, 10, 0}, {"ld.so.cache"}, kAll9, 12));
  MachineView m{&old_driver, nullptr};
  std::vector<std::string> shown = fixes(m);
  EXPECT_EQ(shown.back(), "top cause: driver_too_old");
  EXPECT_NE(shown.front().find("Check the driver"), std::string::npos) << shown.front();
}

// Thousands of distinct messages (a version per line) are counted, not each explained: the first
// kMaxExplanations are, in order, and identical ones still merge.
TEST(ExplainLimits, DistinctMessagesBeyondTheCapAreCountedNotExplained) {
  std::string log;
  for (int i = 0; i < 150; ++i) {
    std::string lib = "libcudnn_cnn_infer.so.8." + std::to_string(i);
    log += "Could not load library " + lib + ". Error: " + lib + ": cannot open shared object file: No such file or directory\n";
  }
  log += log;  // each message twice: merged, not counted again
  ExplainReport r = explain_text(log, catalogue(), MachineView{});
  ASSERT_EQ(r.matches.size(), kMaxExplanations);
  EXPECT_EQ(r.matches_left_out, 50);
  EXPECT_EQ(r.matches.front().occurrences, 2);
  EXPECT_NE(r.matches.front().matched_text.find("so.8.0."), std::string::npos) << r.matches.front().matched_text;
  EXPECT_EQ(explain_text("CUDNN_STATUS_NOT_INITIALIZED", catalogue(), MachineView{}).matches_left_out, 0);
}

// A hundred harmless lines do not push the one failure out: errors are explained first.
TEST(ExplainLimits, TheCapKeepsTheErrorsBeforeHarmlessMessages) {
  std::string log;
  for (int i = 0; i < 120; ++i) log += "Successfully opened dynamic library libfoo" + std::to_string(i) + ".so.1\n";
  log += "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n";
  ExplainReport r = explain_text(log, catalogue(), MachineView{});
  EXPECT_TRUE(r.has_problem());
  ASSERT_NE(find_match(r, "pytorch.cudnn_error_status"), nullptr);
  EXPECT_EQ(r.matches.size(), kMaxExplanations);
  EXPECT_EQ(r.matches_left_out, 21);
  EXPECT_EQ(r.matches.back().entry->id, "pytorch.cudnn_error_status") << "still in the log's order";
}

TEST(ErrorCatalogue, AFixForAnUnknownCheckIsRefused) {
  const std::string json = R"({"schema": 1, "statuses": [], "entries": [{"id": "x", "title": "t", "needles": ["n"],
    "patterns": ["n"], "meaning": "m", "severity": "error", "fixes": [{"text": "f", "for": ["no_such_check"]}],
    "sources": ["https://e"], "causes": [{"text": "c", "check": "driver_absent", "weight": 1}]}]})";
  auto bad = parse_error_catalogue(json, "t");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("no_such_check"), std::string::npos);
}

const char* kShimMessage =
    "Unable to load any of {libcudnn_cnn.so.9.1.0, libcudnn_cnn.so.9.1, libcudnn_cnn.so.9, libcudnn_cnn.so}\n"
    "Invalid handle. Cannot load symbol cudnnCreateConvolutionDescriptor\n";
const char* kShimId = "cudnn9.shim_unable_to_load_sublibrary";

TEST(ExplainRanking, SameMessageNotInstalled) {
  Report r = linux_report();
  r.copies.push_back(make_copy("/usr/lib/x86_64-linux-gnu", Version{8, 9, 7}, {"ld.so.cache"}, {"cudnn", "ops_infer", "cnn_infer"}));
  MachineView m{&r, nullptr};
  auto rep = explain_text(kShimMessage, catalogue(), m);
  const auto& t = top(rep, kShimId);
  EXPECT_EQ(t.check, "cudnn_major_absent");
  EXPECT_EQ(t.verdict, Verdict::kHolds);
  EXPECT_NE(t.evidence.find("No cuDNN 9.x"), std::string::npos) << t.evidence;
  EXPECT_NE(t.evidence.find("8.9.7"), std::string::npos) << "names what is there instead: " << t.evidence;
  EXPECT_EQ(cause(rep, kShimId, "cudnn_off_search_path")->verdict, Verdict::kDoesNotHold);
}

TEST(ExplainRanking, SameMessageInstalledButNotOnTheSearchPath) {
  Report r = linux_report();
  const std::string pip = "/home/u/venv/lib/python3.11/site-packages/nvidia/cudnn/lib";
  r.copies.push_back(make_copy(pip, Version{9, 1, 0}, {"venv env /home/u/venv"}, kAll9));
  MachineView m{&r, nullptr};
  auto rep = explain_text(kShimMessage, catalogue(), m);
  const auto& t = top(rep, kShimId);
  EXPECT_EQ(t.check, "cudnn_off_search_path");
  EXPECT_EQ(t.verdict, Verdict::kHolds);
  EXPECT_NE(t.evidence.find(pip), std::string::npos);
  EXPECT_EQ(cause(rep, kShimId, "cudnn_major_absent")->verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(cause(rep, kShimId, "cudnn_sublibrary_missing")->verdict, Verdict::kDoesNotHold);
  // The fix for what this machine shows comes first: the pip copy's folder on LD_LIBRARY_PATH,
  // not an install of cuDNN 9 (faster-whisper#1182's cure).
  const Explanation* e = find_match(rep, kShimId);
  ASSERT_NE(e, nullptr);
  ASSERT_FALSE(e->fixes.empty());
  EXPECT_NE(e->fixes.front().text.find("LD_LIBRARY_PATH"), std::string::npos) << e->fixes.front().text;
}

TEST(ExplainRanking, SameMessageCopyLacksTheSubLibrary) {
  Report r = linux_report();
  std::vector<std::string> without_cnn = kAll9;
  without_cnn.erase(std::find(without_cnn.begin(), without_cnn.end(), "cnn"));
  r.copies.push_back(make_copy("/usr/lib/x86_64-linux-gnu", Version{9, 1, 0}, {"ld.so.cache"}, without_cnn));
  MachineView m{&r, nullptr};
  auto rep = explain_text(kShimMessage, catalogue(), m);
  const auto& t = top(rep, kShimId);
  EXPECT_EQ(t.check, "cudnn_sublibrary_missing");
  EXPECT_EQ(t.verdict, Verdict::kHolds);
  EXPECT_NE(t.evidence.find("cnn"), std::string::npos);
  EXPECT_EQ(cause(rep, kShimId, "cudnn_off_search_path")->verdict, Verdict::kDoesNotHold);
}

TEST(ExplainRanking, SameMessageWithAHealthyCopyRulesTheInstallCausesOut) {
  Report r = linux_report();
  r.copies.push_back(make_copy("/usr/lib/x86_64-linux-gnu", Version{9, 1, 0}, {"ld.so.cache"}, kAll9));
  MachineView m{&r, nullptr};
  auto rep = explain_text(kShimMessage, catalogue(), m);
  const Explanation* e = find_match(rep, kShimId);
  ASSERT_NE(e, nullptr);
  for (const auto& c : e->causes) EXPECT_EQ(c.verdict, Verdict::kDoesNotHold) << c.check << ": " << c.evidence;
}

TEST(ExplainRanking, WhichResolutionDecidesTheSearchPath) {
  Report r = linux_report();
  r.copies.push_back(make_copy("/opt/cudnn9/lib", Version{9, 1, 0}, {"LD_LIBRARY_PATH"}, kAll9));
  LoaderView loader{"python /srv/app (ctranslate2)", {"/srv/app/lib", "/usr/lib/x86_64-linux-gnu"}};
  MachineView with_loader{&r, &loader};
  auto rep = explain_text(kShimMessage, catalogue(), with_loader);
  EXPECT_EQ(top(rep, kShimId).check, "cudnn_off_search_path");
  EXPECT_NE(top(rep, kShimId).evidence.find("ctranslate2"), std::string::npos);
  MachineView without{&r, nullptr};
  EXPECT_EQ(cause(explain_text(kShimMessage, catalogue(), without), kShimId, "cudnn_off_search_path")->verdict,
            Verdict::kDoesNotHold);
}

TEST(ExplainRanking, PyTorchIncompatibilityBlamesTheOlderCopyOnLdLibraryPath) {
  const char* msg =
      "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 7, 0) but found runtime version "
      "(8, 2, 4). PyTorch already comes bundled with cuDNN.";
  const char* id = "pytorch.cudnn_version_incompatibility";
  Report r = linux_report();
  r.copies.push_back(make_copy("/opt/cudnn-8.2.4/lib64", Version{8, 2, 4}, {"LD_LIBRARY_PATH"}, {"cudnn", "ops_infer"}));
  r.copies.push_back(make_copy("/venv/lib/python3.10/site-packages/nvidia/cudnn/lib", Version{8, 7, 0},
                               {"venv env /venv"}, {"cudnn", "ops_infer"}));
  MachineView m{&r, nullptr};
  auto rep = explain_text(msg, catalogue(), m);
  EXPECT_EQ(top(rep, id).check, "search_path_shadowing");
  EXPECT_EQ(top(rep, id).verdict, Verdict::kHolds);
  EXPECT_NE(top(rep, id).evidence.find("/opt/cudnn-8.2.4/lib64"), std::string::npos);
  EXPECT_EQ(cause(rep, id, "cudnn_older_than_required")->verdict, Verdict::kHolds);

  // Once LD_LIBRARY_PATH no longer leads to the old copy, both causes are ruled out.
  Report fixed = linux_report();
  fixed.copies.push_back(r.copies[1]);
  MachineView mf{&fixed, nullptr};
  auto rep2 = explain_text(msg, catalogue(), mf);
  EXPECT_EQ(cause(rep2, id, "search_path_shadowing")->verdict, Verdict::kDoesNotHold);
  EXPECT_EQ(cause(rep2, id, "cudnn_older_than_required")->verdict, Verdict::kDoesNotHold);
}

TEST(ExplainRanking, WindowsError126PutsZlibFirstOnlyWhereItApplies) {
  const char* msg = "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
                    "Please make sure cudnn_cnn_infer64_8.dll is in your library path!";
  const char* id = "cudnn8.windows_sublibrary_load_failed";
  Report win = linux_report();
  win.os = "windows";
  win.copies.push_back(make_copy("C:/cudnn/bin", Version{8, 9, 7}, {"PATH"}, {"cudnn", "ops_infer", "cnn_infer"}));
  Finding zlib;
  zlib.id = "cudnn.zlibwapi_missing";
  zlib.title = "zlibwapi.dll not found next to cuDNN 8.9.7";
  win.findings.push_back(zlib);
  MachineView mw{&win, nullptr};
  auto rep = explain_text(msg, catalogue(), mw);
  EXPECT_EQ(top(rep, id).check, "zlib_missing");
  EXPECT_EQ(top(rep, id).verdict, Verdict::kHolds);
  // Error 127 is a version mix: zlib is not even a candidate then.
  auto rep127 = explain_text("Could not load library cudnn_cnn_infer64_8.dll. Error code 127", catalogue(), mw);
  EXPECT_EQ(cause(rep127, id, "zlib_missing"), nullptr);
  EXPECT_NE(cause(rep127, id, "cudnn_mixed_versions"), nullptr);

  // On Linux a Windows message is from another machine: the log alone ranks it, and says so.
  Report lin = linux_report();
  MachineView ml{&lin, nullptr};
  auto rep_lin = explain_text(msg, catalogue(), ml);
  EXPECT_NE(rep_lin.machine_set_aside.find("windows"), std::string::npos) << rep_lin.machine_set_aside;
  EXPECT_EQ(cause(rep_lin, id, "zlib_missing")->verdict, Verdict::kUnknown);
  EXPECT_EQ(top(rep_lin, id).check, "cudnn_major_absent");
}

TEST(ExplainRanking, ZlibIsRuledOutWhenDoctorFoundItAndError193UsesTheDoctorFinding) {
  const char* id = "cudnn8.windows_sublibrary_load_failed";
  Report win = linux_report();
  win.os = "windows";
  win.copies.push_back(make_copy("C:/cudnn/bin", Version{8, 9, 7}, {"PATH"}, {"cudnn", "ops_infer", "cnn_infer"}));
  MachineView mw{&win, nullptr};
  // Doctor looked (Windows) and said nothing about zlib: it was found.
  auto rep = explain_text("Could not load library cudnn_cnn_infer64_8.dll. Error code 126", catalogue(), mw);
  ASSERT_NE(cause(rep, id, "zlib_missing"), nullptr);
  EXPECT_EQ(cause(rep, id, "zlib_missing")->verdict, Verdict::kDoesNotHold);
  // 193 with a doctor finding about a 32-bit zlibwapi.dll: that cause holds.
  auto rep193 = explain_text("Could not load library cudnn_cnn_infer64_8.dll. Error code 193", catalogue(), mw);
  ASSERT_NE(cause(rep193, id, "dll_wrong_machine"), nullptr);
  EXPECT_EQ(cause(rep193, id, "dll_wrong_machine")->verdict, Verdict::kUnknown);
  Finding x86;
  x86.id = "windows.zlibwapi_wrong_machine";
  x86.title = "The zlibwapi.dll cuDNN 8.9.7 would load cannot load: built for x86 (error 193, ERROR_BAD_EXE_FORMAT)";
  win.findings.push_back(x86);
  auto rep193b = explain_text("Could not load library cudnn_cnn_infer64_8.dll. Error code 193", catalogue(), mw);
  EXPECT_EQ(cause(rep193b, id, "dll_wrong_machine")->verdict, Verdict::kHolds);
  EXPECT_EQ(top(rep193b, id).check, "dll_wrong_machine");
  // 9.2+ links zlib in.
  Report nine;
  nine.os = "windows";
  nine.copies.push_back(make_copy("C:/cudnn9/bin", Version{9, 19, 0}, {"PATH"}, {"cudnn", "graph"}));
  MachineView m9{&nine, nullptr};
  auto rep9 = explain_text("Could not locate zlibwapi.dll. Please make sure it is in your library path!", catalogue(), m9);
  ASSERT_NE(cause(rep9, "cudnn8.zlibwapi_missing", "zlib_missing"), nullptr);
  EXPECT_EQ(cause(rep9, "cudnn8.zlibwapi_missing", "zlib_missing")->verdict, Verdict::kDoesNotHold);
}

TEST(ExplainRanking, DriverTooOldFollowsTheDriverHere) {
  const char* msg = "The NVIDIA driver on your system is too old (found version 11040).";
  const char* id = "pytorch.driver_too_old";
  Report old_driver = linux_report();
  old_driver.driver.version_text = "470.82.01";
  old_driver.driver.cuda_version = Version{11, 4};
  MachineView m1{&old_driver, nullptr};
  EXPECT_EQ(top(explain_text(msg, catalogue(), m1), id).verdict, Verdict::kHolds);
  Report upgraded = linux_report();
  MachineView m2{&upgraded, nullptr};
  ExplainReport rep = explain_text(msg, catalogue(), m2);  // alive while `t` refers into it
  const auto& t = top(rep, id);
  EXPECT_EQ(t.verdict, Verdict::kDoesNotHold);
  EXPECT_NE(t.evidence.find("upgraded since"), std::string::npos) << t.evidence;
}

TEST(ExplainRanking, NoDriverMakesNoDeviceAndMemoryAnswersClear) {
  Report r = linux_report();
  r.driver = DriverInfo{};
  r.driver.problem = "libcuda.so.1 not found";
  MachineView m{&r, nullptr};
  auto rep = explain_text("failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected", catalogue(), m);
  EXPECT_EQ(top(rep, "cuda.no_device").check, "driver_absent");
  EXPECT_EQ(top(rep, "cuda.no_device").verdict, Verdict::kHolds);
  auto oom = explain_text("RuntimeError: Unable to find a valid cuDNN algorithm to run convolution", catalogue(), m);
  EXPECT_EQ(cause(oom, "pytorch.no_valid_cudnn_algorithm", "gpu_memory")->verdict, Verdict::kDoesNotHold);
}

TEST(ExplainRanking, StatusCausesDependOnTheStatus) {
  Report r = linux_report();
  r.copies.push_back(make_copy("/a/lib", Version{9, 10, 0}, {"LD_LIBRARY_PATH"}, kAll9));
  r.copies.push_back(make_copy("/b/lib", Version{9, 13, 0}, {"ld.so.cache"}, kAll9));
  MachineView m{&r, nullptr};
  auto rep = explain_text("cudnnGraphExecute failed: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH", catalogue(), m);
  EXPECT_EQ(top(rep, "cudnn.status").check, "cudnn_mixed_versions");
  EXPECT_EQ(top(rep, "cudnn.status").verdict, Verdict::kHolds);
  EXPECT_EQ(cause(rep, "cudnn.status", "gpu_memory"), nullptr) << "memory is no cause of a version mismatch";
  auto bad_param = explain_text("cudnnSetTensorNdDescriptor: CUDNN_STATUS_BAD_PARAM", catalogue(), m);
  EXPECT_EQ(top(bad_param, "cudnn.status").check, "not_checkable");
}

TEST(ExplainRanking, GpuBelowTheFloorOfNewCudnn) {
  Report r = linux_report();
  r.driver.gpus = {Gpu{0, "Tesla P100-PCIE-16GB", Version{6, 0}, 16ull << 30}};
  r.copies.push_back(make_copy("/venv/nvidia/cudnn/lib", Version{9, 13, 0}, {"venv env /venv"}, kAll9));
  MachineView m{&r, nullptr};
  auto rep = explain_text("RuntimeError: cuDNN error: CUDNN_STATUS_ARCH_MISMATCH", catalogue(), m);
  EXPECT_EQ(top(rep, "pytorch.cudnn_error_status").check, "gpu_cc_below");
  EXPECT_EQ(top(rep, "pytorch.cudnn_error_status").verdict, Verdict::kHolds);
}

// The real messages of a cuDNN build that dropped the GPU's architecture (tests/data/explain):
// on a machine with such a GPU, gpu_cc_below is the first cause; with a new GPU it is ruled out.
// The floors come from data/rules.json (cudnn_min_compute_capability), not from the catalogue.
std::string log_text(const std::string& name) {
  for (const auto& c : load_logs()) {
    if (c.name == name) return c.text;
  }
  ADD_FAILURE() << name << " is not in " << logs_dir();
  return {};
}

TEST(ExplainRanking, CudnnThatDroppedTheGpuIsTheFirstCause) {
  struct Case {
    const char* log;
    const char* id;
    Gpu old_gpu;
    Version cudnn;
    int cuda_major;
    const char* floor;
  };
  const Case cases[] = {
      // PyTorch names the cuDNN it loaded (91900 = 9.19.0): the copies here do not matter.
      {"pytorch_cudnn_sm_below_75.log", "pytorch.cudnn_drops_gpu_compute_capability",
       Gpu{0, "Tesla P100-PCIE-16GB", Version{6, 0}, 16ull << 30}, Version{9, 1, 0}, 12, "7.5"},
      // cuDNN 8.9 (and every 9.x) dropped Kepler; JAX only says initialisation failed.
      {"jax_dnn_init_kepler.log", "jax.dnn_library_initialization_failed", Gpu{0, "Tesla K80", Version{3, 7}, 12ull << 30},
       Version{8, 9, 7}, 12, "5.0"},
      // A bare status: the floor of the copy here, cuDNN 9.13 for CUDA 12.
      {"pymdnet_arch_mismatch_nvs315.log", "cudnn.status", Gpu{0, "NVIDIA GeForce GTX 1070", Version{6, 1}, 8ull << 30},
       Version{9, 13, 0}, 12, "7.5"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.log);
    std::string text = log_text(c.log);
    Report r = linux_report();
    r.driver.gpus = {c.old_gpu};
    r.copies.push_back(make_copy("/venv/nvidia/cudnn/lib", c.cudnn, {"venv env /venv"}, c.cudnn.major() == 9 ? kAll9 : std::vector<std::string>{"cudnn"}, c.cuda_major));
    MachineView m{&r, nullptr};
    auto rep = explain_text(text, catalogue(), m);
    const auto& t = top(rep, c.id);
    EXPECT_EQ(t.check, "gpu_cc_below");
    EXPECT_EQ(t.verdict, Verdict::kHolds);
    EXPECT_NE(t.evidence.find(c.old_gpu.name), std::string::npos) << t.evidence;
    EXPECT_NE(t.evidence.find("below " + std::string(c.floor)), std::string::npos) << t.evidence;

    Report fresh = linux_report();  // an H200, compute capability 9.0
    fresh.copies = r.copies;
    MachineView n{&fresh, nullptr};
    auto ok = explain_text(text, catalogue(), n);
    const RankedCause* below = cause(ok, c.id, "gpu_cc_below");
    ASSERT_NE(below, nullptr);
    EXPECT_EQ(below->verdict, Verdict::kDoesNotHold) << below->evidence;
  }
}

TEST(ExplainRanking, WithoutACudnnToJudgeAnOldGpuIsOnlyPossible) {
  Report r = linux_report();
  r.driver.gpus = {Gpu{0, "Tesla V100-SXM2-32GB", Version{7, 0}, 32ull << 30}};
  MachineView m{&r, nullptr};
  auto rep = explain_text("RuntimeError: CUDA error: no kernel image is available for execution on the device", catalogue(), m);
  const RankedCause* below = cause(rep, "cuda.no_kernel_image", "gpu_cc_below");
  ASSERT_NE(below, nullptr);
  EXPECT_EQ(below->verdict, Verdict::kUnknown) << below->evidence;
  EXPECT_NE(below->evidence.find("7.5"), std::string::npos) << "the strictest floor cudnnup knows: " << below->evidence;
}

TEST(ExplainRanking, WithoutAMachineEverythingIsUnknownButStillOrdered) {
  MachineView none;
  auto rep = explain_text(kShimMessage, catalogue(), none);
  const Explanation* e = find_match(rep, kShimId);
  ASSERT_NE(e, nullptr);
  ASSERT_GE(e->causes.size(), 3u);
  for (const auto& c : e->causes) EXPECT_EQ(c.verdict, Verdict::kUnknown);
  EXPECT_GE(e->causes[0].score, e->causes[1].score);
}

TEST(ExplainNormalise, PrefixesQuotesAndLineEndings) {
  auto lines = normalise_log_lines(
      "E0000 00:00:1751448150.986970   10148 cuda_dnn.cc:8579] A\r\n"
      "2023-10-09 13:36:23.355516: W tensorflow/core/x.cc:1] B\r"
      "2024-12-09 13:04:11.264813429 [E:onnxruntime:Default, provider_bridge_ort.cc:1862 TryGetProviderInfo_CUDA] C\n"
      "  > > OSError: [WinError 126] D\n"
      "11:10:31.475 [error] E\n"
      "\x1b[31mF\x1b[0m");
  EXPECT_EQ(lines, (std::vector<std::string>{"A", "B", "C", "OSError: [WinError 126] D", "E", "F"}));
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

TEST(ExplainLogs, SuccessStatusIsNoErrorUnlessAFrameworkReportsIt) {
  MachineView none;
  auto api_log = explain_text("i! Return: CUDNN_STATUS_SUCCESS (0)", catalogue(), none);
  EXPECT_TRUE(api_log.matches.empty());
  auto torch = explain_text("RuntimeError: CuDNN error: CUDNN_STATUS_SUCCESS", catalogue(), none);
  ASSERT_EQ(torch.matches.size(), 1u);
  EXPECT_EQ(torch.matches[0].entry->id, "pytorch.cudnn_error_status");
  ASSERT_FALSE(torch.matches[0].causes.empty());
  EXPECT_NE(torch.matches[0].causes[0].text.find("surfaced late"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

TEST(ExplainRanking, WindowsPathOnlyCopyIsOffThePathForPythonFrameworks) {
  const char* msg =
      "  File \"C:\\venv\\lib\\site-packages\\torch\\nn\\modules\\conv.py\", line 456, in _conv_forward\n"
      "Could not locate cudnn_ops64_9.dll. Please make sure it is in your library path!\n";
  const char* id = "cudnn.windows_dll_not_located";
  Report r = linux_report();
  r.os = "windows";
  r.copies.push_back(make_copy("C:/cudnn/bin", Version{9, 1, 0}, {"PATH"}, kAll9));
  MachineView m{&r, nullptr};
  // Only on PATH, and nothing else known: a plain program would find it.
  EXPECT_EQ(cause(explain_text(msg, catalogue(), m), id, "cudnn_off_search_path")->verdict, Verdict::kDoesNotHold);
  // The doctor says Python ignores that PATH entry: for a torch message the copy is off the path.
  Finding f;
  f.id = "windows.path_only_copy";
  f.subject = "C:/cudnn/bin";
  f.title = "cuDNN in C:\\cudnn\\bin is found through PATH only, which Python 3.8+ ignores for extension modules";
  r.findings.push_back(f);
  auto rep = explain_text(msg, catalogue(), m);
  EXPECT_EQ(top(rep, id).check, "cudnn_off_search_path");
  EXPECT_EQ(top(rep, id).verdict, Verdict::kHolds);
  EXPECT_NE(top(rep, id).evidence.find("pytorch"), std::string::npos) << top(rep, id).evidence;
  // A terminal older than the PATH change is reported the same way, whatever the framework.
  Report stale = linux_report();
  stale.os = "windows";
  stale.copies.push_back(make_copy("C:/cudnn/bin", Version{9, 1, 0}, {"PATH"}, kAll9));
  Finding s;
  s.id = "windows.stale_session_path";
  s.subject = "PATH";
  s.title = "This terminal's PATH is older than the system's";
  stale.findings.push_back(s);
  MachineView ms{&stale, nullptr};
  auto rep2 = explain_text("Could not locate cudnn_ops64_9.dll.", catalogue(), ms);
  EXPECT_EQ(top(rep2, id).check, "cudnn_off_search_path");
  EXPECT_NE(top(rep2, id).evidence.find("older than the system"), std::string::npos);
}

TEST(ExplainRanking, DoctorFindingsFeedTheChecks) {
  Report r = linux_report();
  r.copies.push_back(make_copy("/a/lib", Version{9, 10, 0}, {"LD_LIBRARY_PATH"}, kAll9));
  r.copies.push_back(make_copy("/b/lib", Version{9, 10, 0}, {"ld.so.cache"}, kAll9));
  Finding shadowed;
  shadowed.id = "cudnn.shadowed";
  shadowed.subject = "/a/lib";
  shadowed.title = "2 copies of cuDNN 9 are on the library search path; programs get cuDNN 9.10.0 in /a/lib";
  r.findings.push_back(shadowed);
  Finding crashed;
  crashed.id = "cudnn.load_crashed";
  crashed.subject = "/a/lib";
  crashed.title = "cuDNN 9.10.0 in /a/lib crashes when loaded";
  r.findings.push_back(crashed);
  MachineView m{&r, nullptr};
  auto rep = explain_text("RuntimeError: GET was unable to find an engine to execute this computation", catalogue(), m);
  EXPECT_EQ(cause(rep, "pytorch.get_unable_to_find_engine", "search_path_shadowing")->verdict, Verdict::kHolds);
  auto shim = explain_text(kShimMessage, catalogue(), m);
  EXPECT_EQ(cause(shim, kShimId, "cudnn_library_damaged")->verdict, Verdict::kHolds);
  EXPECT_NE(cause(shim, kShimId, "cudnn_library_damaged")->evidence.find("crashes"), std::string::npos);
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

// Synthetic (not a posted log): the cuDNN 8 loader line with an undefined symbol is explained once,
// by the specific entry, with the version mix first.
TEST(ExplainLogs, Cudnn8UndefinedSymbolIsOneMessageAboutMixedVersions) {
  Report r = linux_report();
  r.copies.push_back(make_copy("/usr/lib/x86_64-linux-gnu", Version{8, 9, 2}, {"ld.so.cache"}, {"cudnn", "ops_infer", "cnn_infer"}));
  r.copies.push_back(make_copy("/opt/cudnn/lib", Version{8, 6, 0}, {"LD_LIBRARY_PATH"}, {"cudnn", "ops_infer", "cnn_infer"}));
  MachineView m{&r, nullptr};
  auto rep = explain_text(
      "Could not load library libcudnn_cnn_infer.so.8. Error: /usr/lib/x86_64-linux-gnu/libcudnn_cnn_infer.so.8: "
      "undefined symbol: _ZN5cudnn3cnn5infer22queryClusterPropertiesERPhS3_, version libcudnn_cnn_infer.so.8",
      catalogue(), m);
  ASSERT_EQ(rep.matches.size(), 1u) << ids_text(matched_ids(rep));
  EXPECT_EQ(rep.matches[0].entry->id, "cudnn8.linux_sublibrary_load_failed");
  EXPECT_EQ(rep.matches[0].causes.front().check, "cudnn_mixed_versions");
  EXPECT_EQ(rep.matches[0].causes.front().verdict, Verdict::kHolds);
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

// libstdc++'s std::regex recurses per character: a huge single line must be searched in a slice,
// not whole (this would overflow the stack otherwise), and still be found.
TEST(ExplainLogs, HugeSingleLineIsSearchedAroundTheNeedle) {
  std::string line(300000, 'x');
  line += " RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR ";
  line += std::string(300000, 'y');
  MachineView none;
  auto r = explain_text(line, catalogue(), none);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].entry->id, "pytorch.cudnn_error_status");
  EXPECT_LE(r.matches[0].matched_text.size(), 410u);
}

}  // namespace
}  // namespace cudnnup

namespace cudnnup {
namespace {

// Synthetic: glibc's loader message in other locales (the library name stays as it is).
TEST(ExplainLogs, TranslatedLoaderMessages) {
  MachineView none;
  for (const char* text : {"ImportError: libcudnn_ops.so.9: Kann die Shared-Object-Datei nicht öffnen: Datei oder Verzeichnis nicht gefunden",
                           "OSError: libcudnn.so.8: 无法打开共享对象文件: 没有那个文件或目录",
                           "ImportError: libcudnn_cnn.so.9: ne peut ouvrir le fichier d'objet partagé: Aucun fichier ou dossier de ce type"}) {
    auto r = explain_text(text, catalogue(), none);
    ASSERT_EQ(r.matches.size(), 1u) << text;
    EXPECT_EQ(r.matches[0].entry->id, "cudnn.linux_library_not_found") << text;
  }
  auto cuda = explain_text("ImportError: libcublasLt.so.12: Kann die Shared-Object-Datei nicht öffnen", catalogue(), none);
  ASSERT_EQ(cuda.matches.size(), 1u);
  EXPECT_EQ(cuda.matches[0].variables.at("cuda_major"), "12");
}

}  // namespace
}  // namespace cudnnup
