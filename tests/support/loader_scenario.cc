#include "support/loader_scenario.h"

// The scenarios use ELF stubs, symlinks, patchelf and /proc: Linux only (like the fixtures).
#ifdef CUDNNUP_FIXTURE_DIR
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "platform/process.h"
#include "support/fixture_libs.h"
#include "support/loader_fixtures.h"

namespace cudnnup::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

const char* const kBlockNames[] = {
    "version 9.19.0", "version 9.19.1", "version 9.14.0", "version 9.1.0", "two copies of one version",
    "versioned file names", "bare .so names", "symlinked shim", "symlinked directory", "LD_LIBRARY_PATH",
    "empty LD_LIBRARY_PATH entry", "relative LD_LIBRARY_PATH entry", "program dlopen()s cuDNN",
    "program has DT_NEEDED cuDNN", "intermediate library needs cuDNN", "executable DT_RPATH",
    "executable DT_RUNPATH", "library DT_RPATH", "library DT_RUNPATH", "$ORIGIN", "LD_PRELOAD of a sub-library",
    "LD_PRELOAD of a shim", "hwcaps subdirectory", "directory named like the library", "header-only ELF",
    "ld.so.conf + ld.so.cache change"};
static_assert(sizeof(kBlockNames) / sizeof(kBlockNames[0]) == size_t(Block::kCount), "one name per block");

class Rng {
 public:
  explicit Rng(uint64_t seed) : gen_(seed) {}
  int pick(int n) { return int(gen_() % uint64_t(n)); }
  bool chance(int percent) { return pick(100) < percent; }

 private:
  std::mt19937_64 gen_;
};

std::string replace_root(std::string text, const std::string& root) {
  for (size_t at = text.find("@ROOT@"); at != std::string::npos; at = text.find("@ROOT@", at)) text.replace(at, 6, root);
  return text;
}

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? std::string(1, sep) : "") + parts[i];
  return out;
}

// A path the probe printed, resolved as the probe saw it (relative ones against its cwd).
std::string canonical_or(const std::string& p, const std::string& cwd = {}) {
  std::error_code ec;
  fs::path path = p.empty() || p[0] == '/' || cwd.empty() ? fs::path(p) : fs::path(cwd) / p;
  auto c = fs::canonical(path, ec);
  return ec ? p : c.generic_string();
}

std::string component_of(const std::string& path) {
  std::string base = fs::path(path).filename().string();
  if (base.rfind("libcudnn_", 0) == 0) return base.substr(9, base.find(".so") - 9);
  return "cudnn";
}

bool is_cudnn_library(const std::string& path) { return fs::path(path).filename().string().rfind("libcudnn", 0) == 0; }

// A path list entry naming copy `dir` from `from_dir` (both relative to the root).
std::string origin_entry(const std::string& from_dir, const std::string& dir) {
  return "$ORIGIN/" + fs::path(dir).lexically_relative(from_dir).generic_string();
}

// The directories copies can be named by: their own, or a symlinked alias.
struct Names {
  std::vector<std::string> dirs;  // relative
};

void add_llp(Scenario& s, Rng& rng, const std::vector<std::string>& dirs) {
  s.llp_set = true;
  s.blocks.insert(Block::kLdLibraryPath);
  std::vector<std::string> order = dirs;
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[size_t(rng.pick(int(i)))]);
  size_t take = 1 + size_t(rng.pick(int(order.size())));
  for (size_t i = 0; i < take; ++i) {
    const std::string& d = order[i];
    if (rng.chance(25)) {
      s.llp.push_back(fs::path(d).lexically_relative(s.cwd).generic_string());  // relative to the working dir
      s.blocks.insert(Block::kRelativeEntry);
    } else {
      s.llp.push_back("@ROOT@/" + d);
    }
    if (rng.chance(20)) {
      s.llp.insert(s.llp.begin() + long(rng.pick(int(s.llp.size()) + 1)), "");
      s.blocks.insert(Block::kEmptyEntry);
    }
  }
}

void add_paths(Scenario& s, Rng& rng, const std::vector<std::string>& dirs, bool exe) {
  std::string& tag = exe ? s.exe_tag : s.lib_tag;
  auto& list = exe ? s.exe_paths : s.lib_paths;
  std::string from = exe ? "app/bin" : "app/lib";
  int kind = rng.pick(3);
  if (exe && s.program == "library" && kind == 0) kind = 1 + rng.pick(2);  // it must find the library
  if (kind == 0) return;
  tag = kind == 1 ? "rpath" : "runpath";
  s.blocks.insert(exe ? (kind == 1 ? Block::kExeRpath : Block::kExeRunpath) : (kind == 1 ? Block::kLibRpath : Block::kLibRunpath));
  if (exe && s.program == "library") list.push_back("$ORIGIN/../lib");
  int n = 1 + rng.pick(2);
  for (int i = 0; i < n; ++i) {
    const std::string& d = dirs[size_t(rng.pick(int(dirs.size())))];
    if (rng.chance(60)) {
      list.push_back(origin_entry(from, d));
      s.blocks.insert(Block::kOriginToken);
    } else {
      list.push_back("@ROOT@/" + d);
    }
  }
}

}  // namespace

const char* block_name(Block b) { return kBlockNames[size_t(b)]; }

std::string Scenario::describe() const {
  std::ostringstream out;
  out << "seed " << seed << ": program=" << program;
  for (const auto& c : copies) {
    out << "\n  copy " << c.version << " in " << c.dir << (c.versioned ? " (versioned names)" : "")
        << (c.dev_links ? " (.so links)" : "");
  }
  for (const auto& [link, target] : links) out << "\n  link " << link << " -> " << target;
  for (const auto& d : odd_dirs) out << "\n  directory " << d;
  for (const auto& d : header_only) out << "\n  header-only ELF " << d;
  if (llp_set) out << "\n  LD_LIBRARY_PATH=" << join(llp, ':');
  out << "\n  cwd " << cwd;
  if (!exe_tag.empty()) out << "\n  executable " << exe_tag << " " << join(exe_paths, ':');
  if (!lib_tag.empty()) out << "\n  library " << lib_tag << " " << join(lib_paths, ':');
  if (!preload.empty()) out << "\n  LD_PRELOAD=" << preload;
  if (!conf_dirs.empty()) out << "\n  ld.so.conf + " << join(conf_dirs, ' ');
  return out.str();
}

Scenario generate_scenario(uint64_t seed) {
  Rng rng(seed);
  Scenario s;
  s.seed = seed;
  const auto& versions = loader_versions();
  int ncopies = 1 + rng.pick(3);
  std::set<std::string> seen_versions;
  for (int i = 0; i < ncopies; ++i) {
    ScenarioCopy c;
    c.version = versions[size_t(rng.pick(int(versions.size())))];
    // Sometimes the first copy sits in the working directory itself (reached by an empty entry).
    c.dir = i == 0 && rng.chance(25) ? "work" : "c" + std::to_string(i) + "/lib";
    c.versioned = rng.chance(35);
    c.dev_links = rng.chance(25);
    if (!seen_versions.insert(c.version).second) s.blocks.insert(Block::kSameVersionTwice);
    s.blocks.insert(c.version == "9.19.0" ? Block::kVersion9190 : c.version == "9.19.1" ? Block::kVersion9191
                    : c.version == "9.14.0" ? Block::kVersion9140 : Block::kVersion910);
    if (c.versioned) s.blocks.insert(Block::kVersionedNames);
    if (c.dev_links) s.blocks.insert(Block::kBareNames);
    s.copies.push_back(c);
  }
  std::vector<std::string> dirs;
  for (const auto& c : s.copies) dirs.push_back(c.dir);
  if (rng.chance(15)) {  // a symlinked directory standing for a copy
    const std::string& target = dirs[size_t(rng.pick(int(dirs.size())))];
    s.links.push_back({"alias/lib", fs::path(target).lexically_relative("alias").generic_string()});
    dirs.push_back("alias/lib");
    s.blocks.insert(Block::kSymlinkedDir);
  }
  if (s.copies.size() >= 2 && rng.chance(15)) {  // copy 1's shim is a link to copy 0's
    s.links.push_back({s.copies[1].dir + "/libcudnn.so.9",
                       fs::path(s.copies[0].dir + "/libcudnn.so.9").lexically_relative(s.copies[1].dir).generic_string()});
    s.blocks.insert(Block::kSymlinkedShim);
  }
  int p = rng.pick(3);
  s.program = p == 0 ? "dlopen" : p == 1 ? "needed" : "library";
  s.blocks.insert(p == 0 ? Block::kDlopenProgram : p == 1 ? Block::kNeededProgram : Block::kIntermediateLibrary);
  std::vector<std::string> llp_dirs = dirs;
  if (rng.chance(7)) {
    s.odd_dirs.push_back("odd/lib/libcudnn.so.9");
    llp_dirs.push_back("odd/lib");
    s.blocks.insert(Block::kDirectoryOfTheName);
  }
  if (rng.chance(7)) {
    s.header_only.push_back("stub/lib/libcudnn.so.9");
    llp_dirs.push_back("stub/lib");
    s.blocks.insert(Block::kHeaderOnlyElf);
  }
  if (rng.chance(12)) {  // another copy's graph library as an "optimised" one in a subdirectory
    const ScenarioCopy& from = s.copies[size_t(rng.pick(int(s.copies.size())))];
    std::string sub = rng.chance(50) ? "glibc-hwcaps/x86-64-v2" : "tls";
    std::string dir = "hw/lib";
    s.links.push_back({dir + "/" + sub + "/libcudnn_graph.so.9",
                       fs::path(from.dir + "/libcudnn_graph.so.9").lexically_relative(dir + "/" + sub).generic_string()});
    llp_dirs.push_back(dir);
    s.blocks.insert(Block::kHwcapsSubdir);
  }
  if (rng.chance(75) || llp_dirs.size() > dirs.size()) add_llp(s, rng, llp_dirs);
  add_paths(s, rng, dirs, true);
  if (s.program == "library") add_paths(s, rng, dirs, false);
  if (rng.chance(20)) {
    const ScenarioCopy& c = s.copies[size_t(rng.pick(int(s.copies.size())))];
    bool shim = rng.chance(20);
    s.preload = "@ROOT@/" + c.dir + (shim ? "/libcudnn.so.9" : rng.chance(70) ? "/libcudnn_graph.so.9" : "/libcudnn_ops.so.9");
    s.blocks.insert(shim ? Block::kPreloadShim : Block::kPreloadSubLibrary);
  }
  if (rng.chance(15)) {
    s.conf_dirs.push_back("@ROOT@/" + dirs[size_t(rng.pick(int(dirs.size())))]);
    s.blocks.insert(Block::kLdSoConf);
  }
  return s;
}

bool mount_namespace_available() {
  ProcessOptions o;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}};
  auto r = run_process({"unshare", "-m", "true"}, o);
  return r && r->exited_normally() && r->exit_code == 0;
}

namespace {

bool run_ok(const std::vector<std::string>& argv, std::string* err = nullptr) {
  ProcessOptions o;
  o.env = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}};
  auto r = run_process(argv, o);
  if (err && r) *err = r->out + r->err;
  return r && r->exited_normally() && r->exit_code == 0;
}

std::string loader_file(const std::string& version, const std::string& name) {
  return name == "libcudnn.so.9" ? loader_fixture("shim-" + version + "/libcudnn.so.9")
                                 : loader_fixture("sub-" + version + "/" + name);
}

// Lays out the files, patches the program and library. Returns "" or why it could not.
std::string materialize(const Scenario& s, const std::string& root) {
  std::error_code ec;
  for (const auto& c : s.copies) {
    std::string dir = root + "/" + c.dir;
    fs::create_directories(dir, ec);
    std::vector<std::string> names = {"libcudnn"};
    for (const auto& comp : cudnn9_components()) names.push_back("libcudnn_" + comp);
    for (const auto& n : names) {
      std::string soname = n + ".so.9";
      if (c.versioned) {
        fs::copy_file(loader_file(c.version, soname), dir + "/" + n + ".so." + c.version, ec);
        fs::create_symlink(n + ".so." + c.version, dir + "/" + soname, ec);
      } else {
        fs::copy_file(loader_file(c.version, soname), dir + "/" + soname, ec);
      }
      if (c.dev_links) fs::create_symlink(soname, dir + "/" + n + ".so", ec);
      if (ec) return "cannot lay out " + dir + ": " + ec.message();
    }
    int minor = std::stoi(c.version.substr(2, c.version.rfind('.') - 2));
    int patch = std::stoi(c.version.substr(c.version.rfind('.') + 1));
    fs::create_directories(fs::path(dir).parent_path() / "include", ec);
    std::ofstream(fs::path(dir).parent_path() / "include/cudnn_version.h") << cudnn_version_header(9, minor, patch);
  }
  for (const auto& [link, target] : s.links) {
    fs::path l = fs::path(root) / link;
    fs::create_directories(l.parent_path(), ec);
    fs::remove(l, ec);
    fs::create_symlink(target, l, ec);
    if (ec) return "cannot link " + l.string() + ": " + ec.message();
  }
  for (const auto& d : s.odd_dirs) fs::create_directories(root + "/" + d, ec);
  for (const auto& h : s.header_only) {
    std::ifstream in(loader_file("9.19.0", "libcudnn.so.9"), std::ios::binary);
    std::string header(64, '\0');
    in.read(header.data(), 64);
    fs::create_directories(fs::path(root + "/" + h).parent_path(), ec);
    std::ofstream(root + "/" + h, std::ios::binary) << header;
  }
  fs::create_directories(root + "/" + s.cwd, ec);
  fs::create_directories(root + "/app/bin", ec);
  std::string exe = root + "/app/bin/probe";
  fs::copy_file(loader_fixture("bin/probe_dlopen"), exe, ec);
  if (ec) return "cannot copy the probe: " + ec.message();
  fs::permissions(exe, fs::perms::owner_all, fs::perm_options::add, ec);
  std::string err;
  if (s.program == "needed" && !run_ok({"patchelf", "--add-needed", "libcudnn.so.9", exe}, &err)) return "patchelf: " + err;
  if (s.program == "library") {
    fs::create_directories(root + "/app/lib", ec);
    fs::copy_file(loader_fixture("chain/libleaf.so"), root + "/app/lib/libleaf.so", ec);
    if (!run_ok({"patchelf", "--add-needed", "libleaf.so", exe}, &err)) return "patchelf: " + err;
    if (!s.lib_tag.empty()) {
      std::vector<std::string> args = {"patchelf"};
      if (s.lib_tag == "rpath") args.push_back("--force-rpath");
      args.insert(args.end(), {"--set-rpath", replace_root(join(s.lib_paths, ':'), root), root + "/app/lib/libleaf.so"});
      if (!run_ok(args, &err)) return "patchelf: " + err;
    }
  }
  if (!s.exe_tag.empty()) {
    std::vector<std::string> args = {"patchelf"};
    if (s.exe_tag == "rpath") args.push_back("--force-rpath");
    args.insert(args.end(), {"--set-rpath", replace_root(join(s.exe_paths, ':'), root), exe});
    if (!run_ok(args, &err)) return "patchelf: " + err;
  }
  if (!s.conf_dirs.empty()) {
    std::ofstream conf(root + "/ld.so.conf");
    for (const auto& d : s.conf_dirs) conf << replace_root(d, root) << "\n";
    conf << "include /etc/ld.so.conf\n";
    conf.close();
    // -X: leave every directory's links alone; -C/-f: a private cache from a private conf.
    if (!run_ok({"ldconfig", "-X", "-C", root + "/ld.so.cache", "-f", root + "/ld.so.conf"}, &err)) return "ldconfig: " + err;
  }
  return {};
}

std::map<std::string, std::string> scenario_env(const Scenario& s, const std::string& root) {
  std::map<std::string, std::string> env = {{"PATH", "/usr/bin:/bin"}, {"HOME", root + "/home"}, {"NO_COLOR", "1"}};
  if (s.llp_set) env["LD_LIBRARY_PATH"] = replace_root(join(s.llp, ':'), root);
  if (!s.preload.empty()) env["LD_PRELOAD"] = replace_root(s.preload, root);
  return env;
}

// Runs argv in the scenario's environment, inside a private mount namespace with the
// scenario's cache when it has one.
Result<ProcessResult> run_in(const Scenario& s, const std::string& root, std::vector<std::string> argv) {
  ProcessOptions o;
  o.env = scenario_env(s, root);
  o.cwd = root + "/" + s.cwd;
  o.timeout_ms = 20000;
  if (!s.conf_dirs.empty()) {
    std::vector<std::string> wrapped = {"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                                        "mount --bind \"$0\" /etc/ld.so.cache && exec \"$@\"", root + "/ld.so.cache"};
    wrapped.insert(wrapped.end(), argv.begin(), argv.end());
    argv = wrapped;
  }
  return run_process(argv, o);
}

Truth read_truth(const ProcessResult& r, const std::string& cwd) {
  Truth t;
  t.raw = r.out + r.err;
  t.ran = r.exited_normally() && r.exit_code != 127;
  std::istringstream lines(r.out);
  std::string line;
  // "loaded FILE graph=X ...": the stub shim's and graph library's own dlopen() handles. When a
  // component is mapped twice (an LD_PRELOADed graph library and the one the shim's dlopen()
  // found under a versioned name), the maps alone do not say which one the shim loaded.
  std::map<std::string, std::string> handles;
  while (std::getline(lines, line)) {
    if (line.rfind("mapped ", 0) == 0) {
      std::string path = line.substr(7);
      if (!is_cudnn_library(path)) continue;  // temp dirs may say "cudnn" too
      std::string c = canonical_or(path);
      t.mapped.insert(c);
      t.files[component_of(path)] = c;
    } else if (line.rfind("bindings ", 0) == 0) {
      std::istringstream words(line.substr(9));
      std::string file, pair;
      words >> file;
      while (words >> pair) {
        size_t eq = pair.find('=');
        if (eq != std::string::npos) {
          t.bindings[canonical_or(file, cwd)][pair.substr(0, eq)] = canonical_or(pair.substr(eq + 1), cwd);
        }
      }
    } else if (line.rfind("loaded ", 0) == 0) {
      std::istringstream words(line.substr(7));
      std::string file, pair;
      words >> file;
      while (words >> pair) {
        size_t eq = pair.find('=');
        if (eq != std::string::npos) handles[pair.substr(0, eq)] = canonical_or(pair.substr(eq + 1), cwd);
      }
    } else if (line.rfind("check ", 0) == 0) {
      t.check_fails |= line.find(" 1002") != std::string::npos;
    } else if (line.rfind("real-shim ", 0) == 0) {
      t.real_shim = true;
    }
  }
  for (const auto& [component, file] : handles) t.files[component] = file;
  t.loaded = t.files.count("cudnn") > 0;
  std::set<std::string> dirs;
  for (const auto& m : t.mapped) dirs.insert(fs::path(m).parent_path().string());
  t.mixed = dirs.size() > 1;
  for (const auto& [file, deps] : t.bindings) {
    for (const auto& [dep, to] : deps) t.mixed |= fs::path(to).parent_path() != fs::path(file).parent_path();
  }
  return t;
}

void compare(const Truth& t, const json& p, std::vector<std::string>& out) {
  if (!p.contains("resolution")) {
    out.push_back("no prediction");
    return;
  }
  const json& res = p["resolution"];
  bool found = res.value("found", false);
  if (found != t.loaded) {
    out.push_back(std::string("shim loads: truth ") + (t.loaded ? "yes" : "no") + ", prediction " + (found ? "yes" : "no"));
    return;
  }
  if (!t.loaded) return;
  std::map<std::string, std::string> predicted = {{"cudnn", res.value("canonical", "")}};
  if (t.real_shim) {  // the system's real cuDNN: the probe leaves it alone, only the shim is compared
    if (predicted["cudnn"] != t.files.at("cudnn")) {
      out.push_back("cudnn: truth " + t.files.at("cudnn") + ", prediction " + predicted["cudnn"]);
    }
    return;
  }
  std::map<std::string, std::map<std::string, std::string>> predicted_bindings;
  const json& cudnn = p.contains("cudnn") ? p["cudnn"] : json();
  if (cudnn.is_object()) {
    for (const auto& sub : cudnn["sub_libraries"]) {
      if (!sub["resolution"].value("found", false)) continue;
      std::string file = sub["resolution"].value("canonical", "");
      predicted[sub.value("component", "")] = file;
      if (sub.contains("bindings")) {
        for (const auto& b : sub["bindings"]) {
          if (b["file"].is_string()) predicted_bindings[file][b.value("dependency", "")] = b["file"].get<std::string>();
        }
      }
    }
  }
  for (const auto& [component, path] : t.files) {
    if (!predicted.count(component)) {
      out.push_back(component + ": truth " + path + ", not predicted");
    } else if (predicted[component] != path) {
      out.push_back(component + ": truth " + path + ", prediction " + predicted[component]);
    }
  }
  if (p.contains("loaded_cudnn_files")) {
    std::set<std::string> files;
    for (const auto& f : p["loaded_cudnn_files"]) files.insert(f.get<std::string>());
    if (files != t.mapped) out.push_back("mapped cuDNN files differ from loaded_cudnn_files");
  }
  for (const auto& [file, deps] : t.bindings) {
    for (const auto& [dep, to] : deps) {
      if (predicted_bindings.count(file) && predicted_bindings[file].count(dep) && predicted_bindings[file][dep] != to) {
        out.push_back("binding of " + file + " to " + dep + ": truth " + to + ", prediction " + predicted_bindings[file][dep]);
      }
    }
  }
  bool predicted_mixed = cudnn.is_object() && cudnn.value("mixed_copies", false);
  if (predicted_mixed != t.mixed) {
    out.push_back(std::string("mixed: truth ") + (t.mixed ? "yes" : "no") + ", prediction " + (predicted_mixed ? "yes" : "no"));
  }
  // cuDNN's version check. Builds without a version_check field predicted a failure for any mix.
  if (cudnn.is_object()) {
    bool predicted_fails = cudnn.contains("version_check") ? cudnn["version_check"] == "fails" : predicted_mixed;
    if (predicted_fails != t.check_fails) {
      out.push_back(std::string("version check: truth ") + (t.check_fails ? "fails" : "passes") + ", prediction " +
                    (predicted_fails ? "fails" : "passes"));
    }
  }
}

}  // namespace

Outcome run_scenario(const Scenario& s, const std::string& root, const std::string& binary, bool can_unshare) {
  Outcome o;
  if (!s.conf_dirs.empty() && !can_unshare) {
    o.skipped = true;
    o.skip_reason = "no private mount namespace (unshare -m needs root or CAP_SYS_ADMIN)";
    return o;
  }
  if (std::string why = materialize(s, root); !why.empty()) {
    o.disagreements.push_back("set-up failed: " + why);
    return o;
  }
  std::string exe = root + "/app/bin/probe";
  std::vector<std::string> oracle = {exe};
  if (s.program == "dlopen") oracle.push_back("libcudnn.so.9");
  auto truth = run_in(s, root, oracle);
  if (!truth) {
    o.disagreements.push_back("cannot run the oracle: " + truth.error().message);
    return o;
  }
  o.truth = read_truth(*truth, root + "/" + s.cwd);
  auto predicted = run_in(s, root, {binary, "--json", "which", "--for", exe});
  if (!predicted) {
    o.disagreements.push_back("cannot run cudnnup: " + predicted.error().message);
    return o;
  }
  o.prediction = predicted->out;
  json p = json::parse(predicted->out, nullptr, false);
  if (p.is_discarded()) {
    o.disagreements.push_back("cudnnup printed no JSON: " + predicted->out + predicted->err);
    return o;
  }
  // A scenario can reach this machine's own cuDNN (the toolkit's, through ld.so.cache or the
  // default directories). Its real libraries need symbols the stubs do not define, so the real
  // dlopen() fails on an undefined symbol; symbol binding is outside the loader model
  // (docs/commands/which.md, "Not modelled"). Such a scenario says nothing about the model's
  // search rules: it is counted as skipped, with its reason, instead of compared.
  if (p.contains("loaded_cudnn_files") && p["loaded_cudnn_files"].is_array()) {
    for (const auto& f : p["loaded_cudnn_files"]) {
      if (f.is_string() && f.get<std::string>().rfind(root, 0) != 0) {
        o.skipped = true;
        o.skip_reason = "reaches the machine's own cuDNN outside the scenario, whose libraries need symbols the stubs lack "
                        "(symbol binding is not modelled)";
        return o;
      }
    }
  }
  compare(o.truth, p, o.disagreements);
  return o;
}

}  // namespace cudnnup::testing
#endif  // CUDNNUP_FIXTURE_DIR
