// End-to-end `cudnnup explain`: the real binary, the real doctor on stub cuDNN trees in temporary
// directories. The same message gets a different top cause as the machine changes.
#include <gtest/gtest.h>

#include <filesystem>

#include "platform/process.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"

namespace cudnnup::testing {
namespace {

using nlohmann::json;

const char* kOpsInfer8 =
    "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot open shared object file: "
    "No such file or directory\nPlease make sure libcudnn_ops_infer.so.8 is in your library path!\nAborted (core dumped)";

class ExplainE2E : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(_WIN32) || !defined(CUDNNUP_FIXTURE_DIR)
    GTEST_SKIP() << "the stub cuDNN fixtures and /bin/sh exist only in the Linux build";
#endif
  }
  json explain(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    env["HOME"] = tmp_.path();
    args.insert(args.begin(), {"explain", "--json"});
    auto r = run_cli(args, env);
    exit_code_ = r.exit_code;
    EXPECT_FALSE(r.json.is_null()) << r.out << r.err;
    return r.json;
  }
  static const json& top_cause(const json& out) {
    static const json none;
    if (!out.contains("matches") || out["matches"].empty() || out["matches"][0]["causes"].empty()) return none;
    return out["matches"][0]["causes"][0];
  }
  TempDir tmp_;
  int exit_code_ = -1;
};

TEST_F(ExplainE2E, SameMessageNotInstalled) {
  json out = explain({kOpsInfer8});
  for (const auto& c : out["machine"]["cudnn_copies"]) {
    const json& v = c["library_version"];
    if (v.is_string() && v.get<std::string>().rfind("8.", 0) == 0) GTEST_SKIP() << "this machine has cuDNN 8";
  }
  EXPECT_EQ(exit_code_, 0);
  ASSERT_EQ(out["matches"].size(), 1u) << out.dump(1);
  EXPECT_EQ(out["matches"][0]["id"], "cudnn8.linux_sublibrary_load_failed");
  EXPECT_EQ(top_cause(out)["check"], "cudnn_major_absent") << out.dump(1);
  EXPECT_EQ(top_cause(out)["verdict"], "holds");
  EXPECT_FALSE(out["machine"].is_null());
}

TEST_F(ExplainE2E, SameMessageInstalledInAVenvButNotOnTheSearchPath) {
  std::string venv = tmp_ / "venv";
  write_text(venv + "/pyvenv.cfg", "home = /usr/bin\n");
  std::string lib = venv + "/lib/python3.11/site-packages/nvidia/cudnn/lib";
  install_stub_set("v8.9.7", lib);
  json out = explain({kOpsInfer8}, {{"VIRTUAL_ENV", venv}});
  ASSERT_EQ(out["matches"].size(), 1u) << out.dump(1);
  EXPECT_EQ(top_cause(out)["check"], "cudnn_off_search_path") << out.dump(1);
  EXPECT_EQ(top_cause(out)["verdict"], "holds");
  EXPECT_NE(top_cause(out)["evidence"].get<std::string>().find(lib), std::string::npos);
  // With the directory on LD_LIBRARY_PATH the same text is no longer explained by the path.
  json fixed = explain({kOpsInfer8}, {{"VIRTUAL_ENV", venv}, {"LD_LIBRARY_PATH", lib}});
  for (const auto& c : fixed["matches"][0]["causes"]) {
    if (c["check"] == "cudnn_off_search_path" || c["check"] == "cudnn_major_absent") {
      EXPECT_EQ(c["verdict"], "ruled_out") << c.dump();
    }
  }
}

TEST_F(ExplainE2E, SameMessageCopyOnThePathLacksTheSubLibrary) {
  std::string lib = tmp_ / "cudnn8/lib";
  install_stub_set("v8.9.7", lib);
  std::filesystem::remove(lib + "/libcudnn_ops_infer.so.8");
  json out = explain({kOpsInfer8}, {{"LD_LIBRARY_PATH", lib}});
  EXPECT_EQ(top_cause(out)["check"], "cudnn_sublibrary_missing") << out.dump(1);
  EXPECT_EQ(top_cause(out)["verdict"], "holds");
}

TEST_F(ExplainE2E, UnknownTextIsNotRecognisedWithTheMachineSummary) {
  json out = explain({"Segmentation fault in my own code"});
  EXPECT_EQ(exit_code_, 1);
  EXPECT_EQ(out["recognised"], false);
  EXPECT_TRUE(out["matches"].empty());
  EXPECT_TRUE(out["machine"].contains("cudnn_copies"));
  auto text = run_cli({"explain", "--no-doctor", "Segmentation fault in my own code"}, {{"HOME", tmp_.path()}});
  EXPECT_EQ(text.exit_code, 1);
  EXPECT_NE(text.out.find("Not recognised"), std::string::npos) << text.out;
}

TEST_F(ExplainE2E, FileInputHarmlessOnlyAndUsageErrors) {
  write_text(tmp_ / "train.log",
             "2023-12-05 09:29:18.697209: E tensorflow/compiler/xla/stream_executor/cuda/cuda_dnn.cc:9342] Unable to "
             "register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered\r\n"
             "Epoch 1/3\r\n");
  json out = explain({"--no-doctor", "--file", tmp_ / "train.log"});
  EXPECT_EQ(exit_code_, 0);
  EXPECT_EQ(out["has_problem"], false);
  ASSERT_EQ(out["matches"].size(), 1u);
  EXPECT_EQ(out["matches"][0]["harmless"], true);
  EXPECT_TRUE(out["machine"].is_null());

  auto text = run_cli({"explain", "--no-doctor", "--file", tmp_ / "train.log"}, {{"HOME", tmp_.path()}});
  EXPECT_NE(text.out.find("harmless"), std::string::npos) << text.out;

  auto missing = run_cli({"explain", "--file", tmp_ / "nope.log"}, {{"HOME", tmp_.path()}});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.log"), std::string::npos) << missing.err;
  EXPECT_EQ(run_cli({"explain"}, {{"HOME", tmp_.path()}}).exit_code, 2);
  EXPECT_EQ(run_cli({"explain", "x", "--file", tmp_ / "train.log"}, {{"HOME", tmp_.path()}}).exit_code, 2);
}

TEST_F(ExplainE2E, ReadsStdin) {
  ProcessOptions opt;
  opt.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"HOME", tmp_.path()}};
  auto r = run_process({"/bin/sh", "-c",
                        "printf 'noise\\nRuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED\\n' | '" +
                            std::string(CUDNNUP_BINARY) + "' --json explain --no-doctor -"},
                       opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->out << r->err;
  json out = json::parse(r->out, nullptr, false);
  ASSERT_FALSE(out.is_discarded()) << r->out;
  ASSERT_EQ(out["matches"].size(), 1u);
  EXPECT_EQ(out["matches"][0]["id"], "pytorch.cudnn_error_status");
  EXPECT_EQ(out["matches"][0]["lines"], json::array({2}));
}

// A live log through a pipe: process substitution, /dev/stdin and a named FIFO are read to the
// end as `cat` would; `--db` too. Standard input that is a folder or closed is exit 2 naming it.
TEST_F(ExplainE2E, ReadsPipesNamedAsFilesAndRefusesUnreadableStdin) {
  ProcessOptions opt;
  opt.timeout_ms = 60000;
  opt.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"HOME", tmp_.path()}, {"C", CUDNNUP_BINARY},
                                               {"T", tmp_.path()}, {"RULES", std::string(CUDNNUP_SOURCE_DIR) + "/data/rules.json"}};
  auto bash = [&](const std::string& script) {
    auto r = run_process({"/bin/bash", "-c", script}, opt);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  };
  const std::string line = "echo 'RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED'";
  for (const std::string& how : {"\"$C\" --json explain --no-doctor --file <(" + line + ")",
                                 line + " | \"$C\" --json explain --no-doctor --file /dev/stdin",
                                 "mkfifo \"$T/fifo\" && { " + line + " > \"$T/fifo\" & } && \"$C\" --json explain --no-doctor --file \"$T/fifo\""}) {
    SCOPED_TRACE(how);
    auto r = bash(how);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    json out = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(out.is_discarded()) << r.out << r.err;
    ASSERT_EQ(out["matches"].size(), 1u);
    EXPECT_EQ(out["matches"][0]["id"], "pytorch.cudnn_error_status");
  }
  auto db = bash("\"$C\" --db <(cat \"$RULES\") doctor -q >/dev/null");
  EXPECT_NE(db.exit_code, 2) << db.err;
  for (const char* bad : {"\"$C\" explain - < \"$T\"", "\"$C\" explain - <&-"}) {
    auto r = bash(bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("standard input"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace cudnnup::testing
