// Every fix runs: every cudnnup command a fix can print is parsed by the real command
// line. The explain catalogue's steps (with the variables a message gives), the fixes explain
// prints for every real log in tests/data/explain, and doctor's install steps; and the check is
// shown to refuse the commands that used to be printed (`cudnnup which --all`, `install 9`).
// The fixes doctor prints on fixture machines are run for real in tests/cli/fix_commands_posix_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "base/json_reader.h"
#include "base/numbers.h"
#include "diagnose/checks.h"
#include "diagnose/windows_dll_checks.h"
#include "diagnose/windows_path_reach.h"
#include "explain/explain.h"
#include "facts/install_fix.h"
#include "facts/known_archives.h"
#include "shell/fix_render.h"
#include "support/explain_corpus.h"
#include "support/fix_check.h"
#include "support/memory_fs.h"
#include "support/pe_builder.h"

namespace cudnnup {
namespace {

using testing::cli_refusal;

const ErrorCatalogue& catalogue() {
  const auto& c = builtin_error_catalogue();
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
  return *c;
}

std::string words(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& w : argv) s += (s.empty() ? "" : " ") + w;
  return s;
}

// --- the check itself bites -------------------------------------------------------------------

TEST(FixCheck, RefusesTheCommandsThatUsedToBePrinted) {
  EXPECT_NE(cli_refusal({"cudnnup", "which", "--all"}), "") << "which has no --all";
  EXPECT_NE(cli_refusal({"cudnnup", "install", "8"}), "") << "a printed version names its CUDA build";
  EXPECT_NE(cli_refusal({"cudnnup", "install", "9.19.0"}), "") << "a printed version names its CUDA build";
  EXPECT_NE(cli_refusal({"cudnnup", "install", "latest"}), "");
  EXPECT_NE(cli_refusal({"cudnnup", "install", "9.x", "--cuda", "12"}), "") << "no such release spec";
  EXPECT_NE(cli_refusal({"cudnnup", "install", "9", "--cuda", "0"}), "") << "--cuda is a CUDA major";
  EXPECT_NE(cli_refusal({"cudnnup", "install", "<version>", "--cuda", "12"}), "");
  EXPECT_NE(cli_refusal({"cudnnup", "doctr"}), "");
  EXPECT_NE(cli_refusal({"cudnnup", "doctor", "--json", "--format", "text"}), "") << "the global checks run too";
  EXPECT_NE(cli_refusal({"cudnnup"}), "") << "no command";
  EXPECT_NE(cli_refusal({"nvidia-smi"}), "");
}

TEST(FixCheck, AcceptsWhatTheCommandLineAccepts) {
  EXPECT_EQ(cli_refusal({"cudnnup", "doctor"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "which", "-v"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "install", "9.19.0", "--cuda", "13"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "install", "9", "--cuda", "13"}), "") << "the newest 9.x";
  EXPECT_EQ(cli_refusal({"cudnnup", "install", "9.10", "--cuda", "12"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "install", "latest", "--cuda", "13"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "install", "9.19.0", "--into", "/usr/local/cuda-13.0"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "use", "9"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "uninstall", "--into", "/usr/local/cuda", "--force"}), "");
  EXPECT_EQ(cli_refusal({"cudnnup", "which", "--for", "torch", "--python", "/opt/my env/bin/python", "--probe", "-v"}), "");
}

// --- rendering ----------------------------------------------------------------------------------

TEST(FixRender, QuotesOnlyWhatNeedsItForEachShell) {
  FixStep which = fix::cudnnup({"which", "--for", "torch", "--python", "/opt/my env/it's/python"}, "why it lost");
  EXPECT_EQ(*render_fix_step(which, Shell::kBash),
            "cudnnup which --for torch --python '/opt/my env/it'\\''s/python'   # why it lost");
  EXPECT_EQ(*render_fix_step(which, Shell::kFish), "cudnnup which --for torch --python '/opt/my env/it\\'s/python'   # why it lost");
  EXPECT_EQ(*render_fix_step(which, Shell::kPwsh), "cudnnup which --for torch --python '/opt/my env/it''s/python'   # why it lost");
  EXPECT_EQ(*render_fix_step(which, Shell::kCmd), "cudnnup which --for torch --python \"/opt/my env/it's/python\"   & REM why it lost");
  EXPECT_EQ(*render_fix_step(fix::run({"pip", "install", "-U", "jax[cuda12]"}), Shell::kBash), "pip install -U 'jax[cuda12]'");
  EXPECT_EQ(*render_fix_step(fix::sudo({"ldconfig"}), Shell::kBash), "sudo ldconfig");
  EXPECT_EQ(*render_fix_step(fix::set_env("LD_LIBRARY_PATH", "/a b:/c"), Shell::kBash), "export LD_LIBRARY_PATH='/a b:/c'");
  EXPECT_EQ(*render_fix_step(fix::unset_env("LD_PRELOAD"), Shell::kFish), "set -e LD_PRELOAD");
  EXPECT_EQ(*render_fix_step(fix::set_env("TF_CPP_MIN_LOG_LEVEL", "3"), Shell::kCmd), "set \"TF_CPP_MIN_LOG_LEVEL=3\"");
  EXPECT_EQ(*render_fix_step(fix::cudnnup_eval({"env"}), Shell::kBash), "eval \"$(cudnnup env --shell bash)\"")
      << "the shell named, whatever env's own default";
  EXPECT_EQ(*render_fix_step(fix::cudnnup_eval({"env"}), Shell::kFish), "cudnnup env --shell fish | source");
  EXPECT_EQ(*render_fix_step(fix::cudnnup_eval({"env"}), Shell::kCmd), "for /f \"delims=\" %i in ('cudnnup env --shell cmd') do @%i")
      << "cmd runs each line of the output";
  EXPECT_EQ(*render_fix_step(fix::step("Reboot"), Shell::kBash), "Reboot");
}

TEST(FixRender, WhatAShellCannotHoldBecomesASentenceNotACommand) {
  std::vector<FixStep> steps = {fix::run({"ldd", "/weird\ndir/libcudnn.so.9"}), fix::set_env("LD_LIBRARY_PATH", "/a\n/b")};
  auto lines = render_fix(steps, Shell::kBash);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("(a step that cannot be written as bash code: ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("Edit LD_LIBRARY_PATH by hand (", 0), 0u) << lines[1];
  EXPECT_EQ(fix_commands(steps), (std::vector<std::vector<std::string>>{steps[0].argv})) << "argument vectors need no shell";
}

TEST(FixSteps, TheDataFormRoundTrips) {
  std::vector<FixStep> steps = {fix::cudnnup({"install", "9.19.0", "--cuda", "13"}, "n"), fix::cudnnup_eval({"env"}),
                                fix::run({"nvidia-smi"}), fix::sudo({"ldconfig"}), fix::set_env("A", "b"), fix::unset_env("C"),
                                fix::shell("lsmod | grep nvidia"), fix::shell_in(ShellDialect::kPowerShell, "$env:X = 1"),
                                fix::step("Reboot")};
  for (const auto& s : steps) {
    JsonReader reader("test");
    FixStep back = fix_step_from_json(reader.read_object(fix_step_to_json(s)));
    EXPECT_TRUE(reader.ok()) << fix_step_to_json(s).dump();
    EXPECT_EQ(back, s) << fix_step_to_json(s).dump();
  }
  JsonReader bad("test");
  (void)fix_step_from_json(bad.read_object(nlohmann::json{{"cudnnup", {"doctor"}}, {"run", {"x"}}}));
  EXPECT_FALSE(bad.ok()) << "two kinds in one step";
  JsonReader dialect("test");
  (void)fix_step_from_json(dialect.read_object(nlohmann::json{{"run", {"x"}}, {"dialect", "cmd"}}));
  EXPECT_FALSE(dialect.ok()) << "only shell code has a dialect";
  JsonReader unknown("test");
  (void)fix_step_from_json(unknown.read_object(nlohmann::json{{"command", "cudnnup which --all"}}));
  EXPECT_FALSE(unknown.ok());
}

TEST(ErrorCatalogue, AFixStepWrittenAsACommandLineIsRefused) {
  std::string text = R"({"schema": 1, "data_version": "t", "statuses": [], "entries": [{"id": "x", "title": "t",
    "needles": ["boom"], "patterns": ["boom"], "meaning": "m", "severity": "error", "causes": [],
    "fixes": [{"text": "t", "linux": ["cudnnup which --all"]}], "sources": ["https://example.org"]}]})";
  auto cat = parse_error_catalogue(text, "test.json");
  ASSERT_FALSE(cat.ok());
  EXPECT_NE(cat.error().message.find("must be an object"), std::string::npos) << cat.error().message;
}

// --- the catalogue ------------------------------------------------------------------------------

// The variables explain derives from what a message captures (explain.h, derive_variables).
const std::set<std::string> kDerived = {"component", "major", "lib_version", "platform", "cuda_major", "release",
                                        "status_meaning", "status_codes", "driver_cuda_version", "framework",
                                        "builds", "direction", "dependency", "installable_major"};

std::set<std::string> placeholders(const FixStep& s) {
  std::set<std::string> out;
  std::vector<std::string> texts = s.argv;
  texts.insert(texts.end(), {s.name, s.value, s.text, s.note});
  static const std::regex placeholder(R"(\{([A-Za-z0-9_]+)\})");
  for (const auto& t : texts) {
    for (std::sregex_iterator it(t.begin(), t.end(), placeholder), end; it != end; ++it) out.insert((*it)[1]);
  }
  return out;
}

// Representative values for every variable a step may name.
Variables representative() {
  return {{"major", "9"}, {"required", "9.1.0"}, {"release", "9.19.0"}, {"cuda_major", "12"}, {"lib", "libcudnn_ops.so.9"},
          {"component", "ops"}, {"lib_version", "9.1.0"}, {"platform", "linux"}, {"driver_cuda_version", "12.2"},
          {"framework", "pytorch"}, {"found", "8.9.7"}, {"status", "CUDNN_STATUS_NOT_INITIALIZED"},
          {"installable_major", "9"}};
}

std::vector<std::string> substituted(const std::vector<std::string>& argv, const Variables& vars) {
  std::vector<std::string> out;
  for (std::string w : argv) {
    for (const auto& [k, v] : vars) {
      for (size_t at = w.find("{" + k + "}"); at != std::string::npos; at = w.find("{" + k + "}")) w.replace(at, k.size() + 2, v);
    }
    out.push_back(w);
  }
  return out;
}

TEST(FixCommands, EveryCudnnupStepOfTheCatalogueParses) {
  size_t checked = 0;
  for (const auto& e : catalogue().entries) {
    std::set<std::string> captured;
    for (const auto& p : e.patterns) captured.insert(p.group_names.begin(), p.group_names.end());
    for (const auto& f : e.fixes) {
      for (const auto* list : {&f.linux_steps, &f.windows_steps}) {
        for (const auto& cs : *list) {
          SCOPED_TRACE(e.id + ": " + fix_step_to_json(cs.step).dump());
          for (const auto& name : placeholders(cs.step)) {
            EXPECT_TRUE(captured.count(name) || kDerived.count(name)) << "{" << name << "} is not a variable of this entry";
          }
          if (cs.step.kind == FixKind::kShell) {
            EXPECT_EQ(cs.step.text.find("cudnnup"), std::string::npos) << "a cudnnup command is a cudnnup step, not shell code";
          }
          if (cs.step.kind != FixKind::kCudnnup) continue;
          auto argv = substituted(cs.step.argv, representative());
          EXPECT_EQ(cli_refusal(argv), "") << words(argv);
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 100u) << "the catalogue's cudnnup steps were found";
}

struct Log {
  std::string name, text;
};

// tests/data/explain/*.log and the real-log corpus in tests/data/explain/corpus/.
std::vector<Log> real_logs() {
  std::vector<Log> out;
  for (const char* sub : {"", "/corpus"}) {
    std::string dir = std::string(CUDNNUP_SOURCE_DIR) + "/tests/data/explain" + sub;
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& f : std::filesystem::directory_iterator(dir)) {
      if (f.path().extension() != ".log") continue;
      std::ifstream in(f.path(), std::ios::binary);
      out.push_back({std::string(sub) + f.path().filename().string(), std::string(std::istreambuf_iterator<char>(in), {})});
    }
  }
  return out;
}

// A sentence that still names a cudnnup command ("run `cudnnup which --all`") is a command in
// disguise: it would escape the parse.
bool names_a_command(const std::string& text) {
  static const std::regex command(R"(\bcudnnup [a-z-]+)");
  return std::regex_search(text, command);
}

// `install RELEASE --cuda N` names a build NVIDIA published (data/known_archives.json); `install 9
// --cuda N` (the newest of a major) needs one of that major. Other commands pass.
bool names_a_known_build(const std::vector<std::string>& argv) {
  if (argv.size() < 5 || argv[1] != "install" || argv[3] != "--cuda") return true;
  auto cuda = checked_int(argv[4], 1, 99);
  if (!cuda) return false;
  for (bool windows : {false, true}) {
    for (const auto& v : known_releases(builtin_known_archives(), windows ? "windows-x86_64" : "linux-x86_64", *cuda)) {
      if (v.str() == argv[2] || std::to_string(v.major()) == argv[2]) return true;
    }
  }
  return false;
}

// What explain prints for one log: every step rendered, each cudnnup step parsed by the real CLI.
size_t check_printed_fixes(const ExplainReport& report) {
  size_t commands = 0;
  for (const auto& m : report.matches) {
    for (const auto& f : m.fixes) {
      for (bool windows : {false, true}) {
        const auto& steps = windows ? f.windows_steps : f.linux_steps;
        auto lines = render_fix(steps, default_fix_shell(windows));
        for (size_t i = 0; i < steps.size(); ++i) {
          SCOPED_TRACE(m.entry->id + ": " + lines[i]);
          EXPECT_EQ(lines[i].find('{'), std::string::npos) << "a placeholder was printed";
          EXPECT_FALSE(std::regex_search(lines[i], std::regex("<[a-z _]+>"))) << "a placeholder was printed";
          if (steps[i].kind == FixKind::kText) {
            EXPECT_FALSE(names_a_command(lines[i]));
          }
          if (steps[i].kind != FixKind::kCudnnup) continue;
          EXPECT_EQ(cli_refusal(steps[i].argv), "") << lines[i];
          EXPECT_TRUE(names_a_known_build(steps[i].argv)) << lines[i] << ": no such official archive";
          ++commands;
        }
      }
    }
  }
  return commands;
}

TEST(FixCommands, WhatExplainPrintsForEveryRealLogParsesAndHasNoPlaceholder) {
  auto logs = real_logs();
  if (logs.empty()) GTEST_SKIP() << "tests/data/explain is not readable from this test binary";
  MachineView none;
  size_t commands = 0;
  for (const auto& log : logs) {
    SCOPED_TRACE(log.name);
    commands += check_printed_fixes(explain_text(log.text, catalogue(), none));
  }
  EXPECT_GE(commands, 100u);
}

// The corpus logs again, each on the fixture machine its thread describes (a machine changes the
// causes' order, not the fixes, but a Windows machine makes explain print the Windows steps).
TEST(FixCommands, WhatExplainPrintsForEveryCorpusLogOnItsMachineParses) {
  auto corpus = testing::load_corpus();
  if (corpus.empty()) GTEST_SKIP() << testing::corpus_dir() << " is not readable from this test binary";
  size_t commands = 0;
  for (const auto& log : corpus) {
    SCOPED_TRACE(log.name);
    auto fixture = testing::fixture_report(log.fixture);
    ASSERT_TRUE(fixture.ok()) << fixture.error().message;
    if (!fixture->has_value()) continue;
    commands += check_printed_fixes(explain_text(log.text, catalogue(), MachineView{&**fixture, nullptr}));
  }
  EXPECT_GE(commands, 50u);
}

TEST(FixCommands, InstallStepsAreReleasesWithACudaMajor) {
  // What doctor and verify offer (facts/install_fix.h), for every cuDNN and CUDA major cudnnup knows.
  for (int cudnn : {8, 9}) {
    for (int cuda : {11, 12, 13}) {
      for (bool windows : {false, true}) {
        FixStep s = install_newest_fix(cudnn, cuda, windows);
        if (s.kind == FixKind::kText) {
          EXPECT_FALSE(newest_known_release(builtin_known_archives(), cudnn, cuda, windows)) << s.text;
          EXPECT_FALSE(names_a_command(s.text)) << s.text;
          continue;
        }
        EXPECT_EQ(cli_refusal(s.argv), "") << words(s.argv);
      }
    }
  }
  EXPECT_EQ(install_newest_fix(9, 13, false).argv, (std::vector<std::string>{"cudnnup", "install", "9", "--cuda", "13"}))
      << "cuDNN 9 for CUDA 13 is in the table; `install 9` takes the newest";
  EXPECT_EQ(install_fix(Version{9, 19, 0, 56}, 13).argv,
            (std::vector<std::string>{"cudnnup", "install", "9.19.0", "--cuda", "13"}));
  EXPECT_EQ(cli_refusal(install_fix(Version{9, 19, 0}, 0, "/usr/local/cuda-13.0").argv), "");
  EXPECT_EQ(install_fix(Version{9, 19, 0}, 0).kind, FixKind::kText) << "no CUDA major, no toolkit: no command to print";
  EXPECT_EQ(install_fix(Version{}, 12).kind, FixKind::kText);
}

// doctor's Windows PATH findings print cudnnup commands with Windows paths (spaces included):
// `env --persist --dir`, `which ... -v`. Each parses with the real command line.
TEST(FixCommands, DoctorsWindowsPathFixesParse) {
  testing::MemoryFileSystem fs;
  Report report;
  auto add_copy = [&](const std::string& dir, Version v, PackageForm form) {
    CudnnCopy c;
    c.lib_dir = dir;
    c.form = form;
    c.library_version = v;
    fs.add_file(dir + "/cudnn64_9.dll", testing::build_pe_dll(kPeMachineX64, {"KERNEL32.dll"}));
    CudnnLibrary lib;
    lib.path = dir + "/cudnn64_9.dll";
    c.libraries.push_back(lib);
    report.copies.push_back(c);
  };
  add_copy("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.4/bin", Version{9, 1, 0}, PackageForm::kToolkitMerged);
  add_copy("D:/old cudnn/bin", Version{9, 0, 0}, PackageForm::kUnknown);
  add_copy("E:/cudnn 9.19/bin", Version{9, 19, 0}, PackageForm::kArchiveTree);
  Environment env;
  env.os = OsKind::kWindows;
  env.vars = {{"PATH", "C:\\Windows\\System32"}, {"SYSTEMROOT", "C:\\Windows"}};
  auto check = [&](const Environment& e) {
    return check_windows_path_reach(fs, e, report, model_windows_loads(fs, e, report));
  };
  std::vector<Finding> findings = check(env);  // never on PATH
  env.persistent_machine_path = "C:\\Windows\\System32;D:\\old cudnn\\bin";
  env.persistent_user_path = "E:\\cudnn 9.19\\bin";
  for (auto& f : check(env)) findings.push_back(f);  // on the registry's PATH only, the user copy behind
  env.vars["PATH"] = "C:\\Windows\\System32;D:\\old cudnn\\bin;E:\\cudnn 9.19\\bin";
  for (auto& f : check(env)) findings.push_back(f);
  std::set<std::string> ids;
  size_t commands = 0;
  for (const auto& f : findings) {
    ids.insert(f.id);
    for (const auto& step : f.fix) {
      if (step.kind != FixKind::kCudnnup) continue;
      ++commands;
      EXPECT_EQ(cli_refusal(step.argv), "") << f.id << ": " << words(step.argv);
    }
  }
  EXPECT_EQ(ids, (std::set<std::string>{"windows.cudnn_not_on_path", "windows.user_path_shadowed"}));
  EXPECT_GE(commands, 4u);
}

}  // namespace
}  // namespace cudnnup
