// "Every fix runs", end to end: doctor on the fixture machines of doctor_e2e_test.cc, every
// cudnnup command in its JSON "fix_commands", and every cudnnup command explain's catalogue prints
// for the real logs in tests/data/explain; each is parsed by the real command line
// (support/fix_check.h) and then run by the real binary (commands that change things with
// --dry-run, in a temporary HOME): none may end as a usage error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "explain/explain.h"
#include "support/fix_check.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup::testing {
namespace {

using nlohmann::json;
using Argv = std::vector<std::string>;

std::string words(const Argv& argv) {
  std::string s;
  for (const auto& w : argv) s += (s.empty() ? "" : " ") + w;
  return s;
}

class FixCommands : public ::testing::Test {
 protected:
  // Runs doctor on one machine and keeps its cudnnup fix commands; every finding's fix_commands
  // must be the command steps of its fix_steps.
  void doctor(std::map<std::string, std::string> env) {
    env["HOME"] = tmp_.path();
    auto r = run_cli({"doctor", "--json"}, env);
    ASSERT_FALSE(r.json.is_null()) << r.out << r.err;
    for (const auto& f : r.json["findings"]) {
      ASSERT_TRUE(f.contains("fix_commands")) << f.dump();
      ASSERT_EQ(f["fix"].size(), f["fix_steps"].size()) << f.dump();
      for (const auto& argv : f["fix_commands"]) {
        ++doctor_commands_;
        if (argv[0] == "cudnnup") commands_.insert(argv.get<Argv>());
      }
    }
  }

  // Runs the command as printed (plus --json, and --dry-run where it changes things) with a
  // store in HOME and a mirror with nothing in it: it may fail, but not as a usage error.
  void run_as_printed(Argv argv) {
    std::string path = cli_command_path(argv);
    if (path == "verify") return;  // loads the copy in a child on a GPU: verify_cli_posix_test.cc runs it
    bool persist = std::find(argv.begin(), argv.end(), "--persist") != argv.end();
    if (path == "install" || path == "uninstall" || path == "link" || path == "cache clean" || persist) argv.push_back("--dry-run");
    argv.push_back("--json");
    std::filesystem::create_directories(tmp_ / "empty-mirror");
    auto r = run_cli(Argv(argv.begin() + 1, argv.end()),
                     {{"HOME", tmp_ / "home"}, {"CUDNNUP_MIRROR", tmp_ / "empty-mirror"}, {"LD_LIBRARY_PATH", tmp_ / "new/lib"}});
    bool usage = r.exit_code == 2 && r.json.is_object() && r.json.contains("error") && r.json["error"]["code"] == "usage";
    EXPECT_FALSE(usage) << words(argv) << " is a usage error: " << r.out << r.err;
    EXPECT_NE(r.exit_code, -1) << words(argv);
  }

  TempDir tmp_;
  std::set<Argv> commands_;
  size_t doctor_commands_ = 0;
};

TEST_F(FixCommands, DoctorsFixesOnFixtureMachinesParseAndRun) {
  // Two copies on the search path: shadowing, and the environment's doing (export/unset steps).
  install_stub_set("v9.14.0", tmp_ / "old/lib");
  install_stub_set("v9.19.0", tmp_ / "new/lib");
  doctor({{"LD_LIBRARY_PATH", tmp_ / "old/lib" + ":" + tmp_ / "new/lib"}});
  // A damaged and a missing sub-library, headers of another release.
  install_stub_set("v9.19.0", tmp_ / "damaged/lib");
  std::ofstream(tmp_ / "damaged/lib/libcudnn_cnn.so.9", std::ios::trunc).close();
  install_stub_set("v9.19.0", tmp_ / "tree/lib");
  std::filesystem::remove(tmp_ / "tree/lib/libcudnn_heuristic.so.9");
  write_text(tmp_ / "tree/include/cudnn_version.h", cudnn_version_header(9, 1, 0));
  doctor({{"LD_LIBRARY_PATH", tmp_ / "damaged/lib" + ":" + tmp_ / "tree/lib"}});
  // cuDNN 8 left beside 9 in a toolkit (the mv step), in a directory with a space in its name.
  std::string tk = tmp_ / "my cuda-12.4";
  write_text(tk + "/include/cuda.h", "#define CUDA_VERSION 12040\n");
  install_stub_set("v9.1.0", tk + "/lib64", true);
  install_stub_set("v8.9.7", tk + "/lib64", true, /*dev_links=*/false);
  write_text(tk + "/include/cudnn_version.h", cudnn_version_header(8, 9, 7));
  doctor({{"CUDA_HOME", tk}});
  // Nothing at all (cudnn.not_found offers an install), where the machine itself has no cuDNN.
  doctor({});

  EXPECT_GE(doctor_commands_, 5u) << "the machines gave fixes with commands";
  EXPECT_GE(commands_.size(), 3u);
  for (const auto& argv : commands_) {
    EXPECT_EQ(cli_refusal(argv), "") << words(argv);
    run_as_printed(argv);
  }
}

TEST_F(FixCommands, ExplainsCudnnupStepsForRealLogsRun) {
  std::string dir = std::string(CUDNNUP_SOURCE_DIR) + "/tests/data/explain";
  const auto& cat = builtin_error_catalogue();
  ASSERT_TRUE(cat.ok());
  MachineView none;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    if (f.path().extension() != ".log") continue;
    std::ifstream in(f.path(), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    for (const auto& m : explain_text(text, *cat, none).matches) {
      for (const auto& fix : m.fixes) {
        for (const auto& argv : fix_commands(fix.linux_steps)) {
          if (argv[0] == "cudnnup") commands_.insert(argv);
        }
      }
    }
  }
  EXPECT_GE(commands_.size(), 4u);
  install_stub_set("v9.19.0", tmp_ / "new/lib");
  for (const auto& argv : commands_) run_as_printed(argv);
}

}  // namespace
}  // namespace cudnnup::testing
