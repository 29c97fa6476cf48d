#include "loader/glibc_resolver.h"

#include <algorithm>
#include <set>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

void add_words(const std::string& text, const std::string& separators, std::vector<std::string>& out) {
  std::string word;
  for (char c : text + separators.substr(0, 1)) {
    if (separators.find(c) != std::string::npos) {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
}

}  // namespace

const char* search_rule_name(SearchRule rule) {
  switch (rule) {
    case SearchRule::kPath: return "path";
    case SearchRule::kAlreadyLoaded: return "already-loaded";
    case SearchRule::kPreload: return "LD_PRELOAD";
    case SearchRule::kRpath: return "DT_RPATH";
    case SearchRule::kLdLibraryPath: return "LD_LIBRARY_PATH";
    case SearchRule::kRunpath: return "DT_RUNPATH";
    case SearchRule::kCache: return "ld.so.cache";
    case SearchRule::kDefault: return "default-dirs";
    case SearchRule::kKnownDll: return "KnownDLLs";
    case SearchRule::kApplicationDir: return "application-dir";
    case SearchRule::kDllLoadDir: return "dll-load-dir";
    case SearchRule::kSetDllDirectory: return "SetDllDirectory";
    case SearchRule::kAddDllDirectory: return "AddDllDirectory";
    case SearchRule::kSystem32: return "System32";
    case SearchRule::kSystem16: return "System";
    case SearchRule::kWindowsDir: return "Windows";
    case SearchRule::kCurrentDir: return "current-dir";
    case SearchRule::kPathVariable: return "PATH";
    case SearchRule::kNotSearched: return "not-searched";
    case SearchRule::kNone: return "not-found";
  }
  return "?";
}

const char* load_problem_name(LoadProblem problem) {
  switch (problem) {
    case LoadProblem::kNone: return "none";
    case LoadProblem::kUnreadable: return "unreadable";
    case LoadProblem::kDirectory: return "directory";
    case LoadProblem::kFifo: return "fifo";
    case LoadProblem::kSpecialFile: return "special_file";
    case LoadProblem::kEmpty: return "empty";
    case LoadProblem::kNotBinary: return "not_binary";
    case LoadProblem::kTruncated: return "truncated";
    case LoadProblem::kWrongClass: return "wrong_class";
    case LoadProblem::kWrongMachine: return "wrong_machine";
    case LoadProblem::kMissingDependency: return "missing_dependency";
    case LoadProblem::kBrokenDependency: return "broken_dependency";
  }
  return "?";
}

std::string expand_dynamic_string_tokens(const std::string& text, const std::string& origin_dir,
                                         const std::string& lib_token, const std::string& platform_token) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    if (text[i] != '$') {
      out += text[i++];
      continue;
    }
    bool replaced = false;
    for (auto [token, value] : {std::pair<std::string, std::string>{"ORIGIN", origin_dir},
                                {"LIB", lib_token}, {"PLATFORM", platform_token}}) {
      std::string braced = "${" + token + "}";
      if (text.compare(i, braced.size(), braced) == 0) {
        out += value;
        i += braced.size();
        replaced = true;
        break;
      }
      std::string plain = "$" + token;
      if (text.compare(i, plain.size(), plain) == 0) {
        size_t after = i + plain.size();
        // $ORIGINAL is not $ORIGIN: the token must end at a non-identifier character.
        if (after < text.size() && (std::isalnum(static_cast<unsigned char>(text[after])) || text[after] == '_')) continue;
        out += value;
        i = after;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

std::vector<std::string> split_ld_library_path(const std::string& value) {
  // glibc elf/dl-load.c _dl_init_paths: fillin_rpath(llp, ..., ":;", ...); an unset or empty
  // variable is no list at all, an empty entry is the current directory.
  std::vector<std::string> out;
  if (value.empty()) return out;
  std::string entry;
  for (char c : value) {
    if (c == ':' || c == ';') {
      out.push_back(entry);
      entry.clear();
    } else {
      entry += c;
    }
  }
  out.push_back(entry);
  return out;
}

LoaderSystem loader_system_from(const FileSystem& fs, const Environment& env, bool is_64bit, uint16_t machine,
                                std::vector<std::string>* problems) {
  LoaderSystem sys;
  sys.is_64bit = is_64bit;
  sys.machine = machine;
  sys.cwd = env.cwd.empty() ? "/" : env.cwd;
  if (auto llp = env.get("LD_LIBRARY_PATH")) sys.ld_library_path = split_ld_library_path(*llp);
  if (auto preload = env.get("LD_PRELOAD")) add_words(*preload, " :", sys.ld_preload);
  if (auto file = fs.read_file("/etc/ld.so.preload", 1 << 20)) add_words(*file, " \t\n:", sys.ld_preload);
  if (fs.exists("/etc/ld.so.cache")) {
    auto cache = read_ld_so_cache_shared(fs);
    if (cache) {
      sys.cache = std::move(*cache);
    } else if (problems) {
      problems->push_back("/etc/ld.so.cache: " + cache.error().message);
    }
  }
  LoaderConfig config = read_loader_config(fs, is_64bit, machine);
  sys.default_dirs = config.system_dirs;
  sys.lib_token = config.lib_token;
  if (!config.platform.empty()) sys.platform_token = config.platform;
  sys.hwcaps = config.hwcaps;
  sys.legacy_hwcaps = config.legacy_hwcaps;
  sys.description = (config.glibc_version ? "glibc " + config.glibc_version->str() : std::string("glibc (release unknown)")) +
                    ", default directories " + config.system_dirs_source;
  sys.notes = config.notes;
  return sys;
}

LoaderSimulation::LoaderSimulation(const FileSystem& fs, LoaderSystem system) : fs_(fs), system_(std::move(system)) {}

Result<ElfInfo> LoaderSimulation::elf_of(const std::string& path) const {
  auto it = elf_cache_.find(path);
  if (it != elf_cache_.end()) return it->second;
  // Read through the real path: /lib/x86_64-linux-gnu/libc.so.6 and /usr/lib/x86_64-linux-gnu/
  // libc.so.6 are one file on a merged-/usr system, and a caching filesystem keeps reads by path.
  auto real = fs_.canonical(path);
  const std::string& file = real ? *real : path;
  auto info = fs_.stat(file);
  Result<ElfInfo> parsed = info ? parse_elf([&](uint64_t offset, size_t n) { return fs_.read_range(file, offset, n); },
                                            info->size)
                                : Result<ElfInfo>(info.error());
  elf_cache_.emplace(path, parsed);
  return parsed;
}

bool LoaderSimulation::dir_exists(const std::string& dir) const {
  auto it = dir_cache_.find(dir);
  if (it != dir_cache_.end()) return it->second;
  bool exists = fs_.is_dir(dir);
  dir_cache_.emplace(dir, exists);
  return exists;
}

const std::vector<std::string>& LoaderSimulation::existing_subdirs(const std::string& dir) const {
  auto it = subdir_cache_.find(dir);
  if (it != subdir_cache_.end()) return it->second;
  std::vector<std::string> found;
  auto look = [&](const std::string& sub) {
    std::string d = paths::join(dir, sub);
    if (dir_exists(d)) found.push_back(std::move(d));
  };
  for (const auto& h : system_.hwcaps) look("glibc-hwcaps/" + h);
  for (const auto& l : system_.legacy_hwcaps) look(l);
  return subdir_cache_.emplace(dir, std::move(found)).first->second;
}

std::string LoaderSimulation::expand_tokens(const std::string& text, int object) const {
  std::string origin = object >= 0 ? paths::parent(object == 0 ? objects_[0].canonical : objects_[object].path) : system_.cwd;
  return expand_dynamic_string_tokens(text, origin, system_.lib_token, system_.platform_token);
}

int LoaderSimulation::find_loaded(const std::string& name) const {
  for (size_t i = 0; i < objects_.size(); ++i) {
    const MappedObject& o = objects_[i];
    if (o.path == name || o.elf.soname == name ||
        std::find(o.load_names.begin(), o.load_names.end(), name) != o.load_names.end()) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

int LoaderSimulation::find_mapped_file(const std::string& canonical) const {
  for (size_t i = 0; i < objects_.size(); ++i) {
    if (objects_[i].canonical == canonical) return static_cast<int>(i);
  }
  return -1;
}

int LoaderSimulation::symbol_provider(int object, const std::function<bool(const MappedObject&)>& defines) const {
  if (object < 0 || object >= int(objects_.size())) return -1;
  // glibc _dl_lookup_symbol_x: the global scope (main's search list, then RTLD_GLOBAL objects)
  // first, then the local scope of the object's own dlopen().
  for (size_t i = 0; i < objects_.size(); ++i) {
    if (objects_[i].global && defines(objects_[i])) return int(i);
  }
  int root = objects_[object].scope_root;
  if (root < 0) return -1;
  std::vector<int> queue = {root};
  std::set<int> seen = {root};
  for (size_t q = 0; q < queue.size(); ++q) {
    int o = queue[q];
    if (defines(objects_[o])) return o;
    for (int dep : objects_[o].needed) {
      if (dep >= 0 && seen.insert(dep).second) queue.push_back(dep);
    }
  }
  return -1;
}

std::optional<int> LoaderSimulation::map_one(const Resolution& r, int requester, const std::string& how, bool global,
                                             int root) {
  if (!r.found) return std::nullopt;
  if (int i = find_mapped_file(r.canonical); i >= 0) {
    MappedObject& o = objects_[i];
    if (std::find(o.load_names.begin(), o.load_names.end(), r.name) == o.load_names.end()) o.load_names.push_back(r.name);
    if (global) o.global = true;  // dlopen(RTLD_GLOBAL) of a loaded object promotes it
    return i;
  }
  auto elf = elf_of(r.path);
  if (!elf) return std::nullopt;
  MappedObject o;
  o.path = r.path;
  o.canonical = r.canonical;
  o.elf = *elf;
  o.loader = requester;
  o.load_names = {r.name};
  o.how = how;
  o.global = global;
  o.scope_root = root;
  objects_.push_back(std::move(o));
  return static_cast<int>(objects_.size() - 1);
}

void LoaderSimulation::map_needed_breadth_first(std::vector<int> queue) {
  for (size_t q = 0; q < queue.size(); ++q) {
    int object = queue[q];
    std::vector<std::string> needed = objects_[object].elf.needed;
    for (const std::string& raw : needed) {
      std::string name = expand_tokens(raw, object);
      size_t before = objects_.size();
      Resolution r = locate(name, object, "DT_NEEDED");
      // A dependency joins the scope its dependent is in.
      auto mapped = map_one(r, object, "DT_NEEDED of " + objects_[object].path, objects_[object].global,
                            objects_[object].scope_root);
      objects_[object].needed.push_back(mapped ? *mapped : -1);
      log_.push_back(std::move(r));
      if (mapped && objects_.size() > before) queue.push_back(*mapped);
    }
  }
}

Resolution LoaderSimulation::map_with_deps(const std::string& name, int requester, const std::string& kind, bool global) {
  size_t before = objects_.size();
  Resolution r = locate(name, requester, kind);
  std::string how = kind == "dlopen" && requester >= 0 ? "dlopen from " + objects_[requester].path : kind;
  // A new object opens its own local scope; one already mapped keeps the scope it has.
  int root = int(objects_.size());
  auto mapped = map_one(r, requester, how, global, root);
  log_.push_back(r);
  if (mapped && objects_.size() > before) map_needed_breadth_first({*mapped});
  return r;
}

Result<int> LoaderSimulation::start_executable(const std::string& path) {
  auto elf = elf_of(path);
  if (!elf) {
    Error e = elf.error();
    e.path = path;
    if (e.message.empty()) e.message = "cannot read " + path;
    return e;
  }
  auto canon = fs_.canonical(path);
  system_.is_64bit = elf->is_64bit;
  system_.machine = elf->machine;
  ElfInfo info = *elf;
  start_synthetic(path, info, paths::parent(canon ? *canon : path));
  return 0;
}

int LoaderSimulation::start_synthetic(const std::string& label, const ElfInfo& elf, const std::string& origin_dir) {
  objects_.clear();
  log_.clear();
  MappedObject main;
  main.path = label;
  // $ORIGIN of the executable is its (canonical) directory: keep it in `canonical`.
  main.canonical = paths::join(origin_dir, std::string(paths::basename(label)));
  main.elf = elf;
  main.how = "executable";
  main.global = true;
  objects_.push_back(main);
  std::vector<int> queue = {0};
  for (const std::string& entry : system_.ld_preload) {
    size_t before = objects_.size();
    Resolution r = locate(expand_tokens(entry, 0), 0, "LD_PRELOAD");
    if (r.found && r.rule != SearchRule::kAlreadyLoaded) {
      r.rule_detail = std::string("LD_PRELOAD entry ") + entry + " (found by " + search_rule_name(r.rule) + ")";
      r.rule = SearchRule::kPreload;
    }
    auto mapped = map_one(r, 0, "LD_PRELOAD", true, -1);
    log_.push_back(std::move(r));
    if (mapped && objects_.size() > before) queue.push_back(*mapped);
  }
  map_needed_breadth_first(queue);
  return 0;
}

Resolution LoaderSimulation::dlopen(const std::string& name, int caller, bool global) {
  size_t objects_before = objects_.size(), log_before = log_.size();
  Resolution r = map_with_deps(name, caller, "dlopen", global);
  // dlopen() fails as a whole when a dependency of what it maps cannot be found: glibc unmaps
  // what this call mapped and returns NULL (the next name a caller tries starts afresh).
  for (size_t i = log_before; r.found && i < log_.size(); ++i) {
    const Resolution& dep = log_[i];
    if (dep.kind != "DT_NEEDED" || dep.found) continue;
    r.found = false;
    r.failed_at = r.path;
    r.error = r.path + ": " + dep.error + " (needed by " + dep.requester + "); dlopen() fails";
    objects_.resize(objects_before);
    for (auto& o : objects_) {
      for (int& n : o.needed) {
        if (n >= int(objects_before)) n = -1;
      }
    }
    log_[log_before] = r;  // map_with_deps logged the request first
    break;
  }
  return r;
}

}  // namespace cudnnup
