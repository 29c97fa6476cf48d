// A printed fix is a promise: on fixture machines (a shadowing entry, a damaged library, a missing
// sub-library, a stale header, a build for the wrong CUDA major), this applies the first fix of
// the finding exactly as doctor prints it (its JSON fix_steps: variables set and unset, cudnnup
// commands run for real against a mirror directory, `eval "$(cudnnup env)"` evaluated by a real
// bash), re-runs doctor, and checks that the finding is gone and that no healthy copy changed:
// the same files, version and CUDA major in doctor's eyes, and byte for byte on disk.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "platform/process.h"
#include "platform/real_filesystem.h"
#include "platform/sha256.h"
#include "support/archive_builder.h"
#include "support/fixture_libs.h"
#include "support/run_cli.h"
#include "support/tree_snapshot.h"

namespace cudnnup::testing {
#if CUDNNUP_HAVE_INSTALL  // every case installs from an archive mirror
namespace {

using nlohmann::json;
namespace stdfs = std::filesystem;
using Env = std::map<std::string, std::string>;

// The variables `cudnnup env` may change, read back from the shell that evaluated it.
const std::vector<std::string> kShellVariables = {"LD_LIBRARY_PATH", "LIBRARY_PATH", "CPATH", "CUDNN_PATH", "CUDNN_HOME", "PATH"};

class FixClosure : public ::testing::Test {
 protected:
  void SetUp() override {
    publish_release();
    env_ = {{"HOME", tmp_ / "home"}, {"PATH", "/usr/bin:/bin"}, {"CUDNNUP_MIRROR", tmp_ / "mirror"}, {"NO_COLOR", "1"}};
  }

  // A mirror directory laid out like NVIDIA's redist, with cuDNN 9.19.0 built for CUDA 12 and 13
  // (stub libraries that report 9.19.0 and that CUDA major).
  void publish_release() {
    json platform = json::object();
    for (auto [cuda, variant] : {std::pair{13, "v9.19.0"}, std::pair{12, "v9.19.0-cuda12"}}) {
      std::string top = "cudnn-linux-x86_64-9.19.0.99_cuda" + std::to_string(cuda) + "-archive";
      std::string rel = "cudnn/linux-x86_64/" + top + ".tar.xz";
      OfficialLayout layout{top};
      layout.stub_variant = variant;
      make_dirs(tmp_ / "mirror/cudnn/linux-x86_64");
      write_archive(tmp_ / ("mirror/" + rel), official_entries(layout), ArchiveFormat::kTarXz);
      auto fs = make_real_filesystem();
      platform["cuda" + std::to_string(cuda)] = {{"relative_path", rel},
                                                 {"sha256", *sha256_file(*fs, tmp_ / ("mirror/" + rel))},
                                                 {"size", std::to_string(stdfs::file_size(tmp_ / ("mirror/" + rel)))}};
    }
    json m = {{"release_label", "9.19.0"}, {"cudnn", {{"version", "9.19.0.99"}, {"linux-x86_64", platform}}}};
    write_text(tmp_ / "mirror/redistrib_9.19.0.json", m.dump(1));
  }

  json doctor() {
    auto r = run_cli({"doctor", "--json"}, env_);
    EXPECT_TRUE(r.json.is_object()) << r.out << r.err;
    return r.json;
  }

  static const json* find(const json& report, const std::string& id, const std::string& subject) {
    for (const auto& f : report["findings"]) {
      if (f["id"] == id && f["subject"] == subject) return &f;
    }
    return nullptr;
  }

  // Runs shell code in bash with this environment and takes back the variables it leaves.
  void evaluate_in_bash(const std::string& code) {
    std::string script = code + "\n";
    for (const auto& v : kShellVariables) script += "if [ -n \"${" + v + "+x}\" ]; then printf '%s=%s\\0' " + v + " \"$" + v + "\"; else printf '%s\\0' " + v + "; fi\n";
    ProcessOptions o;
    o.env = env_;
    auto r = run_process({"/bin/bash", "--norc", "--noprofile", "-c", script}, o);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->exit_code, 0) << script << r->err;
    std::string out = r->out;
    for (size_t at = 0; at < out.size();) {
      size_t end = out.find('\0', at);
      std::string item = out.substr(at, end - at);
      at = end + 1;
      size_t eq = item.find('=');
      if (eq == std::string::npos) env_.erase(item);
      else env_[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }

  // The first alternative of a fix, as printed: its steps up to a sentence that starts "or ".
  // Returns how many steps it carried out (sentences for a person are not).
  int apply(const json& steps) {
    int applied = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      const json& s = steps[i];
      if (s.contains("step")) {
        if (i > 0 && s["step"].get<std::string>().rfind("or ", 0) == 0) break;
        continue;
      }
      ++applied;
      if (s.contains("set")) {
        env_[s["set"]] = s["value"];
      } else if (s.contains("unset")) {
        env_.erase(s["unset"].get<std::string>());
      } else if (s.contains("shell")) {
        evaluate_in_bash(s["shell"]);
      } else if (s.contains("cudnnup") && s.value("eval", false)) {
        auto argv = s["cudnnup"].get<std::vector<std::string>>();
        auto r = run_cli(argv, env_);
        EXPECT_EQ(r.exit_code, 0) << s.dump() << r.err;
        evaluate_in_bash(r.out);
      } else if (s.contains("cudnnup")) {
        auto argv = s["cudnnup"].get<std::vector<std::string>>();
        auto r = run_cli(argv, env_);
        EXPECT_EQ(r.exit_code, 0) << s.dump() << "\n" << r.out << r.err;
      } else if (s.contains("run")) {
        ProcessOptions o;
        o.env = env_;
        auto r = run_process(s["run"].get<std::vector<std::string>>(), o);
        EXPECT_TRUE(r.ok() && r->exit_code == 0) << s.dump() << (r.ok() ? r->err : r.error().message);
      } else {
        ADD_FAILURE() << "a step this test cannot carry out: " << s.dump();
      }
    }
    return applied;
  }

  // Copies with no finding about them: what doctor says of their files, and (below the test's
  // directory) every byte of their folder.
  struct Healthy {
    json files;
    std::string root;  // below the test's directory; "" otherwise
    std::map<std::string, std::string> disk;
  };
  std::map<std::string, Healthy> healthy_copies(const json& report) {
    std::map<std::string, Healthy> out;
    for (const auto& c : report["copies"]) {
      std::string dir = c["lib_dir"];
      bool flagged = false;
      for (const auto& f : report["findings"]) flagged |= f["subject"] == dir && f["severity"] != "info";
      if (flagged) continue;
      json files = json::array();
      for (const auto& l : c["libraries"]) files.push_back({l["path"], l["size"], l["problems"]});
      Healthy h{{{"version", c["version"]}, {"cuda_major", c["cuda_major"]}, {"libraries", files}}, {}, {}};
      if (dir.rfind(tmp_.path(), 0) == 0) {
        h.root = c["root"];
        h.disk = disk_tree(h.root);
      }
      out[dir] = h;
    }
    return out;
  }

  // The whole check for one machine: the finding is there, its fix runs, and then it is gone.
  void closes(const std::string& id, const std::string& subject) {
    json before = doctor();
    const json* f = find(before, id, subject);
    ASSERT_NE(f, nullptr) << "no " << id << " about " << subject << " in " << before["findings"].dump(1);
    auto healthy = healthy_copies(before);
    EXPECT_GE(apply((*f)["fix_steps"]), 1) << "the fix carries out nothing: " << (*f)["fix_steps"].dump();
    json after = doctor();
    EXPECT_EQ(find(after, id, subject), nullptr) << id << " is still there after its fix " << (*f)["fix_steps"].dump(1);
    // The fix makes nothing new wrong.
    for (const auto& g : after["findings"]) {
      if (g["severity"] == "info" || find(before, g["id"], g["subject"])) continue;
      ADD_FAILURE() << "the fix of " << id << " brought a new finding: " << g["id"] << " about " << g["subject"] << ": " << g["title"];
    }
    for (const auto& [dir, h] : healthy) {
      bool listed = false;
      for (const auto& c : after["copies"]) {
        if (c["lib_dir"] != dir) continue;
        listed = true;
        json files = json::array();
        for (const auto& l : c["libraries"]) files.push_back({l["path"], l["size"], l["problems"]});
        EXPECT_EQ((json{{"version", c["version"]}, {"cuda_major", c["cuda_major"]}, {"libraries", files}}), h.files) << dir;
      }
      EXPECT_TRUE(listed) << "the healthy copy in " << dir << " is no longer found";
      if (!h.root.empty()) {
        EXPECT_EQ(tree_changes(h.disk, disk_tree(h.root)), "") << dir << " changed on disk";
      }
    }
  }

  TempDir tmp_;
  Env env_;
};

TEST_F(FixClosure, AnEarlierEntryThatShadowsAnotherCopy) {
  install_stub_set("v9.14.0", tmp_ / "old/lib");
  install_stub_set("v9.19.0", tmp_ / "new/lib");
  env_["LD_LIBRARY_PATH"] = tmp_ / "old/lib" + ":" + tmp_ / "new/lib";
  closes("cudnn.shadowed", tmp_ / "old/lib");
  EXPECT_EQ(env_["LD_LIBRARY_PATH"], tmp_ / "new/lib");
}

TEST_F(FixClosure, ADamagedLibraryInAnUnpackedTree) {
  install_stub_set("v9.19.0", tmp_ / "damaged/lib");
  std::ofstream(tmp_ / "damaged/lib/libcudnn_cnn.so.9", std::ios::trunc).close();
  env_["LD_LIBRARY_PATH"] = tmp_ / "damaged/lib";
  closes("cudnn.library_damaged", tmp_ / "damaged/lib");
  EXPECT_EQ(env_["LD_LIBRARY_PATH"].find(tmp_ / "damaged"), std::string::npos) << env_["LD_LIBRARY_PATH"];
}

// The folder also holds a library that is not cuDNN's, so `cudnnup env` keeps it on the path:
// the fix moves the broken copy's own files aside, and the other library stays where it was.
TEST_F(FixClosure, ADamagedLibraryInAFolderItSharesWithOtherLibraries) {
  install_stub_set("v9.19.0", tmp_ / "shared/lib");
  std::ofstream(tmp_ / "shared/lib/libcudnn_cnn.so.9", std::ios::trunc).close();
  write_text(tmp_ / "shared/lib/libfoo.so.1", "not cuDNN");
  env_["LD_LIBRARY_PATH"] = tmp_ / "shared/lib";
  closes("cudnn.library_damaged", tmp_ / "shared/lib");
  EXPECT_EQ(read_file_bytes(tmp_ / "shared/lib/libfoo.so.1"), "not cuDNN");
  EXPECT_TRUE(stdfs::exists(tmp_ / "shared/lib.cudnn-moved-aside/libcudnn_cnn.so.9")) << "moved aside, not deleted";
}

TEST_F(FixClosure, AMissingSubLibrary) {
  install_stub_set("v9.19.0", tmp_ / "tree/lib");
  stdfs::remove(tmp_ / "tree/lib/libcudnn_heuristic.so.9");
  env_["LD_LIBRARY_PATH"] = tmp_ / "tree/lib";
  closes("cudnn.sublibrary_missing", tmp_ / "tree/lib");
}

TEST_F(FixClosure, AStaleHeaderBesideTheLibraries) {
  install_stub_set("v9.19.0", tmp_ / "tree/lib");
  write_text(tmp_ / "tree/include/cudnn_version.h", cudnn_version_header(9, 1, 0));
  env_["LD_LIBRARY_PATH"] = tmp_ / "tree/lib";
  closes("cudnn.header_library_mismatch", tmp_ / "tree/lib");
}

// Merged into a toolkit: the fix merges the right build into the same toolkit, backing up what it
// replaces (uninstall --into restores it).
TEST_F(FixClosure, ABuildForAnotherCudaMajorMergedIntoAToolkit) {
  std::string tk = tmp_ / "cuda-12.9";
  write_text(tk + "/include/cuda.h", "#define CUDA_VERSION 12090\n");
  install_stub_set("v9.19.0", tk + "/lib64");
  write_text(tk + "/include/cudnn_version.h", cudnn_version_header(9, 19, 0));
  env_["CUDA_HOME"] = tk;
  closes("cudnn.cuda_major_mismatch", tk + "/lib64");
}

}  // namespace
#endif  // CUDNNUP_HAVE_INSTALL
}  // namespace cudnnup::testing
