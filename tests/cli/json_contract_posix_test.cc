// The JSON contract (docs/json-schema.md): every command, success and failure alike, prints one
// document whose "schema" names a file in docs/schema/, and that document is valid against it.
// Each command runs for real on a fixture machine (stub cuDNN copies from tests/fixtures in a
// temporary store, a fake venv with torch, the image's real CUDA toolkit, a loopback mirror),
// then tests/cli/validate_json.py checks every document with Debian's python3-jsonschema.
#if CUDNNUP_HAVE_INSTALL

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "app/cli/cli_definition.h"
#include "app/cli/cli_model.h"
#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "platform/sha256.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"
#include "support/loader_fixtures.h"

namespace cudnnup {
namespace {

using namespace cudnnup::testing;
namespace stdfs = std::filesystem;

const std::string kSchemaDir = std::string(CUDNNUP_SOURCE_DIR) + "/docs/schema";
const std::string kValidator = std::string(CUDNNUP_SOURCE_DIR) + "/tests/cli/validate_json.py";

std::string sh_single_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Validates documents with Debian's python3 and python3-jsonschema (scripts/install-deps.sh).
ProcessResult validate(std::vector<std::string> args) {
  args.insert(args.begin(), {"/usr/bin/env", "python3", kValidator, kSchemaDir});
  ProcessOptions o;
  o.timeout_ms = 120000;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
  auto r = run_process(args, o);
  EXPECT_TRUE(r.ok());
  return r.value_or(ProcessResult{});
}

class JsonContract : public ::testing::Test {
 protected:
  void SetUp() override {
    add_version("9.19.0.56+cuda13", "v9.19.0", 9, 19, 0);
    add_version("9.14.0.64+cuda13", "v9.14.0", 9, 14, 0);
    make_dirs(tmp / "home");
    make_dirs(tmp / "proj");
    make_dirs(tmp / "docs");
    // A venv with torch and the pip cuDNN it loads (doctor's and which's framework reports).
    std::string site = tmp / "venv/lib/python3.11/site-packages";
    write_text(tmp / "venv/pyvenv.cfg", "home = /usr/bin\n");
    write_text(tmp / "venv/bin/python3", "");
    write_text(site + "/torch/version.py", "__version__ = '2.9.0+cu130'\ncuda = '13.0'\n");
    write_text(site + "/torch-2.9.0+cu130.dist-info/METADATA",
               "Metadata-Version: 2.1\nName: torch\nVersion: 2.9.0+cu130\nRequires-Dist: nvidia-cudnn-cu13==9.19.0.56\n");
    copy_file(loader_fixture("torch/libtorch_cuda.so"), site + "/torch/lib/libtorch_cuda.so");
    make_loading_copy("9.19.0", site + "/nvidia/cudnn/lib");
    make_dirs(site + "/nvidia_cudnn_cu13-9.19.0.56.dist-info");
  }
  void TearDown() override {
    if (!base_url.empty()) {
      (void)std::system(("python3 -c \"import urllib.request as u; u.urlopen('" + base_url + "__quit', timeout=5)\" >/dev/null 2>&1").c_str());
    }
  }

  void add_version(const std::string& id, const std::string& variant, int major, int minor, int patch) {
    std::string dir = store() + "/versions/" + id;
    install_stub_set(variant, dir + "/lib", /*versioned_names=*/true);
    write_text(dir + "/include/cudnn_version.h", cudnn_version_header(major, minor, patch));
  }
  std::string store() const { return tmp / "store"; }

  ProcessResult cli(const std::vector<std::string>& args, const std::string& cwd, std::map<std::string, std::string> extra) {
    std::string line = "cd " + sh_single_quote(cwd.empty() ? tmp.path() : cwd) + " && exec " + sh_single_quote(CUDNNUP_BINARY);
    for (const auto& a : args) line += " " + sh_single_quote(a);
    std::map<std::string, std::string> env = {{"PATH", tmp / "venv/bin" + ":/usr/local/cuda-13.0/bin:/usr/bin:/bin"},
                                              {"HOME", tmp / "home"},
                                              {"CUDNNUP_HOME", store()},
                                              {"CUDNNUP_SHELL", "bash"}};
    for (auto& [k, v] : extra) env[k] = v;
    ProcessOptions o;
    o.timeout_ms = 120000;
    o.env = env;
    auto r = run_process({"/bin/sh", "-c", line}, o);
    EXPECT_TRUE(r.ok());
    return r.value_or(ProcessResult{});
  }

  // Runs one command in JSON mode; checks its exit code and schema name, and keeps the document
  // for the validator. `command` is the command's path ("cache clean"), for the coverage check.
  nlohmann::json capture(const std::string& command, const std::vector<std::string>& args, int exit_code,
                         const std::string& schema, const std::string& cwd = {}, std::map<std::string, std::string> env = {}) {
    auto r = cli(args, cwd, std::move(env));
    std::string what = "cudnnup";
    for (const auto& a : args) what += " " + a;
    EXPECT_EQ(r.exit_code, exit_code) << what << "\n" << r.out << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << what << " did not print one JSON document:\n" << r.out;
    if (j.is_discarded()) return nullptr;
    EXPECT_EQ(j.value("schema", ""), schema) << what;
    std::string file = tmp / ("docs/" + std::to_string(docs.size()) + ".json");
    write_text(file, r.out);
    docs.push_back(file);
    commands.insert(command);
    return j;
  }

  // A loopback mirror serving NVIDIA's layout (tests/support/mirror_server.py): the manifest
  // redistrib_9.19.0.json and the archive it names.
  std::string serve_mirror() {
    std::string root = tmp / "mirror";
    std::string rel = "cudnn/linux-x86_64/" + testing::kUnpublishedLinuxTop + ".tar.xz";
    make_dirs(root + "/cudnn/linux-x86_64");
    write_archive(root + "/" + rel, official_entries(OfficialLayout{testing::kUnpublishedLinuxTop}), ArchiveFormat::kTarXz);
    auto fs = make_real_filesystem();
    std::string sha = *sha256_file(*fs, root + "/" + rel);
    nlohmann::json m = {{"release_label", "9.19.0"}, {"release_product", "cudnn"},
                        {"cudnn", {{"name", "cuDNN"}, {"version", "9.19.0.99"}, {"cuda_variant", {"13"}},
                                   {"linux-x86_64", {{"cuda13", {{"relative_path", rel}, {"sha256", sha}, {"md5", "0"},
                                                                 {"size", std::to_string(stdfs::file_size(root + "/" + rel))}}}}}}}};
    write_text(root + "/redistrib_9.19.0.json", m.dump(1));
    std::string port_file = tmp / "port";
    std::string cmd = "python3 " + std::string(CUDNNUP_SOURCE_DIR) + "/tests/support/mirror_server.py --root " + root +
                      " --port-file " + port_file + " --log " + (tmp / "requests.log") + " --lifetime 60 &";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    for (int i = 0; i < 200 && !stdfs::exists(port_file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    base_url = "http://127.0.0.1:" + read_file_bytes(port_file) + "/";
    return base_url;
  }

  void run_version_commands();
  void run_machine_commands();
  void run_install_commands();
  void run_small_commands();

  TempDir tmp;
  std::vector<std::string> docs;
  std::set<std::string> commands;
  std::string base_url;
};

void JsonContract::run_version_commands() {
  const std::string e = "cudnnup.error/1";
  capture("current", {"--json", "current"}, 2, e);  // nothing selected yet: the error document
  capture("list", {"--json", "list"}, 0, "cudnnup.list/1");
  capture("list", {"list", "--store-only", "--format", "json"}, 0, "cudnnup.list/1");
  auto change = capture("use", {"use", "9.19", "--json"}, 0, "cudnnup.use/1");
  EXPECT_EQ(change["kind"], "change");
  EXPECT_EQ(change["changed"], true);
  auto again = capture("use", {"use", "9.19", "--json"}, 0, "cudnnup.use/1");
  EXPECT_EQ(again["changed"], false);
  EXPECT_TRUE(again["seq"].is_null());
  capture("use", {"use", "--local", "9.14", "--json"}, 0, "cudnnup.use/1", tmp / "proj");
  EXPECT_EQ(capture("use", {"use", "--history", "--json"}, 0, "cudnnup.use/1")["kind"], "history");
  EXPECT_EQ(capture("use", {"use", "--undo", "--json"}, 0, "cudnnup.use/1")["kind"], "undo");
  capture("use", {"use", "8.1", "--json"}, 2, e);
  // An error with fix steps: the install of what was asked for, as lines, vectors and steps.
  auto with_fix = capture("use", {"use", "9.2+cuda13", "--json"}, 2, e);
  EXPECT_EQ(with_fix["error"]["fix_commands"], nlohmann::json::array({{"cudnnup", "install", "9.2", "--cuda", "13"}}));
  EXPECT_EQ(with_fix["error"]["fix_shell"], "bash");
  capture("current", {"current", "--json"}, 0, "cudnnup.current/1");
  capture("env", {"env", "--json"}, 0, "cudnnup.env/1");
  capture("env", {"env", "--persist", "--json"}, 2, e);  // Windows only
  capture("exec", {"--json", "exec", "no-such-program-here"}, 127, e);
  // `system` (no cudnnup version) and --unset, globally and for a directory, and what the
  // readers print under `system`.
  auto system = capture("use", {"use", "system", "--json"}, 0, "cudnnup.use/1");
  EXPECT_EQ(system["kind"], "system");
  EXPECT_EQ(system["previous"], "9.19.0.56+cuda13");
  EXPECT_EQ(capture("current", {"current", "--json"}, 0, "cudnnup.current/1")["kind"], "system");
  EXPECT_EQ(capture("list", {"list", "--store-only", "--json"}, 0, "cudnnup.list/1")["selected"]["spec"], "system");
  EXPECT_EQ(capture("env", {"env", "--json"}, 0, "cudnnup.env/1")["kind"], "system");
  EXPECT_EQ(capture("use", {"use", "--unset", "--json"}, 0, "cudnnup.use/1")["kind"], "unset");
  auto local_system = capture("use", {"use", "--local", "system", "--json"}, 0, "cudnnup.use/1", tmp / "proj");
  EXPECT_EQ(local_system["scope"], "local");
  EXPECT_EQ(capture("use", {"use", "--local", "--unset", "--json"}, 0, "cudnnup.use/1", tmp / "proj")["kind"], "unset");
  capture("use", {"use", "--unset", "9.19", "--json"}, 2, e);
  ASSERT_EQ(capture("use", {"use", "9.19", "--json"}, 0, "cudnnup.use/1")["changed"], true);
  // link: a toolkit whose own cuDNN is moved aside (dry run: nothing changes).
  std::string cuda = tmp / "cuda-12.4";
  install_stub_set("v9.1.0", cuda + "/lib64", true);
  write_text(cuda + "/lib64/libcudart.so.12", "cudart");
  write_text(cuda + "/include/cudnn_version.h", cudnn_version_header(9, 1, 0));
  capture("link", {"link", "--into", cuda, "--move-aside", "--dry-run", "--json"}, 0, "cudnnup.link/1");
  capture("link", {"link", "--into", cuda, "--json"}, 4, e);
}

void JsonContract::run_machine_commands() {
  const std::string e = "cudnnup.error/1";
  auto doctor = capture("doctor", {"doctor", "--json"}, 0, "cudnnup.doctor/1");
  std::string doctor_file = docs.back();
  EXPECT_FALSE(doctor["frameworks"].empty()) << "the venv's torch: framework reports are checked too";
  EXPECT_FALSE(doctor["toolkits"].empty()) << "the image's CUDA toolkit";
  EXPECT_FALSE(doctor["host"].get<std::string>().empty()) << "this machine's host name, which fleet groups by";
  EXPECT_EQ(doctor["fix_shell"], "bash") << "the shell its fix lines are written for (CUDNNUP_SHELL in the tests)";
  capture("doctor", {"doctor", "--json", "--db", tmp / "no-such-rules.json"}, 2, e);
  // fleet over that very report: one host, counted.
  auto fleet = capture("fleet", {"fleet", "--json", doctor_file}, 0, "cudnnup.fleet/1");
  EXPECT_EQ(fleet["summary"]["hosts"], 1);
  EXPECT_EQ(fleet["groups"][0]["hosts"][0], doctor["host"]);
  capture("fleet", {"fleet", "--json", tmp / "no-such-reports"}, 2, e);
  EXPECT_EQ(capture("which", {"which", "--json"}, 0, "cudnnup.which/1")["kind"], "library");
  std::string lib = store() + "/versions/9.19.0.56+cuda13/lib/libcudnn.so.9";
  // The stub shim has no RUNPATH: its sub-libraries come from the toolkit (through the cache), a
  // mix. The image's toolkit cuDNN is 9.19.0, the stub's version too, so cuDNN's own check passes
  // and `which` exits 0 (docs/commands/which.md: files of the same version from two copies pass;
  // exit 1 is for a check that fails or cannot be predicted). This test was written before that
  // rule and expected exit 1.
  auto mixed = capture("which", {"which", "--for", lib, "--json"}, 0, "cudnnup.which/1");
  EXPECT_EQ(mixed["kind"], "library");
  EXPECT_EQ(mixed["cudnn"]["mixed_copies"], true) << "the sub-libraries come from the toolkit";
  EXPECT_EQ(mixed["cudnn"]["version_check"], "passes");
  auto fw = capture("which", {"which", "--for", "torch", "--json"}, 0, "cudnnup.which/1");
  EXPECT_EQ(fw["kind"], "framework");
  EXPECT_FALSE(fw["reports"].empty());
  capture("which", {"which", "--pid", std::to_string(getpid()), "--json"}, 0, "cudnnup.which/1");
  capture("which", {"which", "--for", tmp / "nothing-here", "--json"}, 2, e);
  capture("explain", {"explain", "CUDNN_STATUS_NOT_INITIALIZED", "--json"}, 0, "cudnnup.explain/1");
  capture("explain", {"explain", "nothing known here", "--no-doctor", "--json"}, 1, "cudnnup.explain/1");
  // No GPU in CI: verify runs up to the driver stage and exits 3; bench fails before any case.
  auto verify = capture("verify", {"verify", "--json"}, 3, "cudnnup.verify/1", {}, {{"CUDNNUP_VERSION", "9.19"}});
  EXPECT_EQ(verify["chosen_by"], "selection");
  capture("verify", {"verify", "--copy", tmp / "nothing-here", "--json"}, 2, e);
  capture("bench", {"bench", "--list-cases", "--json"}, 0, "cudnnup.bench-cases/1");
  // The image's real cuDNN and a stub copy with the whole API: exit 3 for the missing GPU; a copy
  // without the backend API is refused before the driver (exit 1, BenchCli tests).
  capture("bench", {"bench", "--copy", "/usr/local/cuda-13.0/lib", "--json"}, 3, e);
  capture("bench", {"bench", "--copy", store() + "/versions/9.19.0.56+cuda13", "--json"}, 3, e);
}

void JsonContract::run_install_commands() {
  const std::string e = "cudnnup.error/1";
  std::string archive = tmp / (testing::kUnpublishedLinuxTop + ".tar.xz");
  write_archive(archive, official_entries(OfficialLayout{testing::kUnpublishedLinuxTop}), ArchiveFormat::kTarXz);
  capture("archive-info", {"archive-info", archive, "--json"}, 0, "cudnnup.archive-info/1");
  capture("archive-info", {"archive-info", archive, "--no-machine", "--json"}, 0, "cudnnup.archive-info/1");
  capture("archive-info", {"archive-info", tmp / "missing.tar.xz", "--json"}, 2, e);
  EXPECT_EQ(capture("install", {"install", archive, "--dry-run", "--json"}, 0, "cudnnup.install/1")["kind"], "install");
  capture("install", {"install", archive, "--json"}, 0, "cudnnup.install/1");
  capture("install", {"install", archive, "--json"}, 0, "cudnnup.install/1");  // already installed
  // lock prints the document it writes (cudnn.lock, checked too); check exits 1 here: this shell
  // does not load the locked copy (no LD_LIBRARY_PATH), which is drift.
  make_dirs(tmp / "locked");
  capture("use", {"use", "--local", "9.19.0.99", "--json"}, 0, "cudnnup.use/1", tmp / "locked");
  EXPECT_EQ(capture("lock", {"lock", "--json"}, 0, "cudnnup.lock/1", tmp / "locked")["id"], "9.19.0.99+cuda13");
  docs.push_back(tmp / "locked/cudnn.lock");
  auto check = capture("check", {"check", "--json"}, 1, "cudnnup.check/1", tmp / "locked");
  EXPECT_FALSE(check["drift"].empty());
  capture("check", {"check", "--json"}, 2, e);  // no cudnn.lock here or above
  capture("lock", {"lock", "--json"}, 2, e);    // no project pins a version here
  std::string url = serve_mirror();
  auto download = capture("install", {"install", "9.19.0", "--cuda", "13", "--mirror", url, "--dry-run", "--json"}, 0,
                          "cudnnup.install/1");
  EXPECT_EQ(download["kind"], "download");
  EXPECT_TRUE(download["request"].is_object());
  auto partial = capture("install", {"install", "9", "--cuda", "13", "--mirror", url, "--dry-run", "--json"}, 0, "cudnnup.install/1");
  EXPECT_EQ(partial["request"]["release"], "9.19.0");
  capture("install", {"install", "9.77.0", "--cuda", "13", "--mirror", url, "--json"}, 2, e);
  capture("install", {"install", "7", "--cuda", "13", "--mirror", url, "--json"}, 2, e);
  auto available = capture("list", {"list", "--available", "--mirror", url, "--json"}, 0, "cudnnup.list/1");
  EXPECT_EQ(available["kind"], "available");
  EXPECT_EQ(available["releases"][0]["release"], "9.19.0");
  capture("list", {"list", "--available", "--mirror", tmp / "no-such-mirror", "--json"}, 0, "cudnnup.list/1");  // the table stands in
  auto refresh = capture("archive-info", {"archive-info", "--update-known", "--mirror", url, "--dry-run", "--json"}, 0, "cudnnup.archive-info/1");
  EXPECT_EQ(refresh["kind"], "update-known");
  EXPECT_EQ(refresh["added"].size(), 1u);
  capture("archive-info", {"archive-info", "--update-known", "--mirror", tmp / "no-such-mirror", "--json"}, 2, e);
  // The global default may go: the removal clears it.
  capture("use", {"use", "9.19.0.99", "--json"}, 0, "cudnnup.use/1");
  auto planned = capture("uninstall", {"uninstall", "9.19.0.99+cuda13", "--dry-run", "--json"}, 0, "cudnnup.uninstall/1");
  EXPECT_EQ(planned["cleared_global_default"], "9.19.0.99+cuda13");
  auto removed = capture("uninstall", {"uninstall", "9.19.0.99+cuda13", "--json"}, 0, "cudnnup.uninstall/1");
  EXPECT_EQ(removed["cleared_global_default"], "9.19.0.99+cuda13");
  capture("uninstall", {"uninstall", "9.19.0.99+cuda13", "--json"}, 2, e);
  write_text(store() + "/cache/" + testing::kUnpublishedLinuxTop + ".tar.xz.part", "partial");
  auto dry = capture("cache clean", {"cache", "clean", "--dry-run", "--json"}, 0, "cudnnup.cache/1");
  EXPECT_EQ(dry["removed"].size(), 1u);
  EXPECT_TRUE(stdfs::exists(store() + "/cache/" + testing::kUnpublishedLinuxTop + ".tar.xz.part"));
  capture("cache clean", {"cache", "clean", "--json"}, 0, "cudnnup.cache/1");
  EXPECT_FALSE(stdfs::exists(store() + "/cache/" + testing::kUnpublishedLinuxTop + ".tar.xz.part"));
}

void JsonContract::run_small_commands() {
  const std::string e = "cudnnup.error/1";
  capture("init", {"init", "bash", "--json"}, 0, "cudnnup.init/1");
  capture("completions", {"completions", "zsh", "--json"}, 0, "cudnnup.completions/1");
  capture("", {"--version", "--json"}, 0, "cudnnup.version/1");
  // Usage errors and unknown commands are JSON errors too, with exit code 2.
  auto unknown = capture("", {"--json", "doctr"}, 2, e);
  EXPECT_EQ(unknown["error"]["did_you_mean"], nlohmann::json::array({"cudnnup doctor"}));
  capture("", {"--json"}, 2, e);
  capture("cache", {"cache", "--json"}, 2, e);
  capture("doctor", {"doctor", "--jsn", "--json"}, 2, e);
  capture("init", {"init", "tcsh", "--json"}, 2, e);
}

TEST_F(JsonContract, EveryCommandsRealOutputIsValidAgainstItsSchema) {
  run_version_commands();
  run_machine_commands();
  run_install_commands();
  run_small_commands();

  // Every command of the CLI definition was run at least once.
  CLI::App app{kProgramHelp, "cudnnup"};
  GlobalArgs global;
  CommandAction action;
  define_cli(app, global, action);
  CommandSpec spec = describe_cli(app);
  for (const CommandSpec* c : all_commands(spec)) {
    EXPECT_TRUE(commands.count(c->path)) << "no JSON output of `cudnnup " << c->path << "` is checked";
  }

  // cudnnup.bench/1 needs a GPU, cudnnup.env-persist/1 Windows: both are written from the code and
  // checked on those machines only (docs/json-schema.md says so).
  std::vector<std::string> args = {"--require-all", "--untested", "bench-1,env-persist-1"};
  args.insert(args.end(), docs.begin(), docs.end());
  auto r = validate(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), long(docs.size())) << r.out;
}

// Text that is not UTF-8 (a log in another encoding, a folder name in Latin-1) is replaced and
// its bytes kept in a `_bytes` sibling (docs/json-schema.md); the schemas admit those siblings,
// and only as hex.
TEST_F(JsonContract, TextThatIsNotUtf8KeepsItsBytesInSiblingsTheSchemasAdmit) {
  write_text(tmp / "latin1.log", "\xff\xfe" "Could not load library libcudnn_cnn_infer.so.8. Error: libcudnn_cnn_infer.so.8: "
                                  "cannot open shared object file: No such file or directory\n");
  const std::string odd_dir = tmp / "caf\xe9/lib";
  make_loading_copy("9.19.0", odd_dir);
  auto explain = capture("explain", {"--json", "explain", "--file", tmp / "latin1.log"}, 0, "cudnnup.explain/1");
  auto doctor = capture("doctor", {"--json", "doctor"}, 0, "cudnnup.doctor/1", {}, {{"LD_LIBRARY_PATH", odd_dir}});
  auto which = capture("which", {"--json", "which"}, 0, "cudnnup.which/1", {}, {{"LD_LIBRARY_PATH", odd_dir}});
  for (const auto* doc : {&explain, &doctor, &which}) {
    ASSERT_FALSE(doc->is_null());
    EXPECT_NE(doc->dump().find("_bytes\""), std::string::npos) << doc->dump(1);
  }
  auto r = validate(docs);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // A sibling that is not hex is no such sibling.
  auto bad = doctor;
  bad["summary"]["errors_bytes"] = "not hex";
  write_text(tmp / "docs/bad-bytes.json", bad.dump());
  EXPECT_EQ(validate({"--expect-invalid", tmp / "docs/bad-bytes.json"}).exit_code, 0);
}

TEST_F(JsonContract, ADocumentWithARenamedFieldIsRejected) {
  auto r = cli({"--json", "doctor"}, {}, {});
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_FALSE(doc["findings"].empty()) << "this machine has no GPU: the driver warning is there";
  write_text(tmp / "docs/as-printed.json", doc.dump());

  auto top = doc;
  top["summery"] = top["summary"];
  top.erase("summary");
  write_text(tmp / "docs/top.json", top.dump());
  auto nested = doc;
  nested["findings"][0]["titel"] = nested["findings"][0]["title"];
  nested["findings"][0].erase("title");
  write_text(tmp / "docs/nested.json", nested.dump());
  auto wrong_type = doc;
  wrong_type["summary"]["errors"] = "0";
  write_text(tmp / "docs/type.json", wrong_type.dump());

  EXPECT_EQ(validate({tmp / "docs/as-printed.json"}).exit_code, 0) << "the real document is valid";
  auto rejected = validate({"--expect-invalid", tmp / "docs/top.json", tmp / "docs/nested.json", tmp / "docs/type.json"});
  EXPECT_EQ(rejected.exit_code, 0) << rejected.out << rejected.err;
  EXPECT_NE(rejected.out.find("'summary' is a required property"), std::string::npos) << rejected.out;
  EXPECT_NE(rejected.out.find("'title' is a required property"), std::string::npos) << rejected.out;
}

}  // namespace
}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
