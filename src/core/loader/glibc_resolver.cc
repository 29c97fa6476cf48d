#include "loader/glibc_resolver.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {


std::string class_name(bool is_64bit) { return is_64bit ? "64-bit" : "32-bit"; }

// One ordered list of directories with where it came from.
struct SearchList {
  SearchRule rule;
  std::string source;  // "DT_RPATH of X"
  std::vector<std::pair<std::string, std::string>> dirs;  // expanded dir, original entry
};

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
    case SearchRule::kNone: return "not-found";
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

LoaderSystem loader_system_from(const FileSystem& fs, const Environment& env, bool is_64bit, uint16_t machine,
                                std::vector<std::string>* problems) {
  LoaderSystem sys;
  sys.is_64bit = is_64bit;
  sys.machine = machine;
  sys.cwd = env.cwd.empty() ? "/" : env.cwd;
  if (auto llp = env.get("LD_LIBRARY_PATH"); llp && !llp->empty()) {
    sys.ld_library_path = paths::split_list(*llp, ':');
    // ld.so also splits on ';'. An empty entry (":x", "x::y", "x:") is the current directory: kept.
    std::vector<std::string> split;
    for (const auto& entry : sys.ld_library_path) {
      if (entry.empty()) split.push_back(entry);
      for (const auto& part : paths::split_list(entry, ';')) split.push_back(part);
    }
    sys.ld_library_path = split;
  }
  auto add_preload_words = [&](const std::string& text, const std::string& separators) {
    std::string word;
    for (char c : text + separators.substr(0, 1)) {
      if (separators.find(c) != std::string::npos) {
        if (!word.empty()) sys.ld_preload.push_back(word);
        word.clear();
      } else {
        word += c;
      }
    }
  };
  if (auto preload = env.get("LD_PRELOAD")) add_preload_words(*preload, " :");
  if (auto file = fs.read_file("/etc/ld.so.preload", 1 << 20)) add_preload_words(*file, " \t\n:");
  if (fs.exists("/etc/ld.so.cache")) {
    auto cache = read_ld_so_cache(fs);
    if (cache) {
      sys.cache = std::move(*cache);
    } else if (problems) {
      problems->push_back("/etc/ld.so.cache: " + cache.error().message);
    }
  }
  std::string triplet = multiarch_triplet(machine, is_64bit);
  if (!triplet.empty() && fs.is_dir("/usr/lib/" + triplet)) {
    sys.default_dirs = {"/lib/" + triplet, "/usr/lib/" + triplet, "/lib", "/usr/lib"};
    sys.lib_token = "lib/" + triplet;
  } else if (is_64bit && fs.is_dir("/usr/lib64")) {
    sys.default_dirs = {"/lib64", "/usr/lib64"};
    sys.lib_token = "lib64";
  } else {
    sys.default_dirs = {"/lib", "/usr/lib"};
    sys.lib_token = "lib";
  }
  sys.platform_token = elf_machine_name(machine);  // $PLATFORM
  return sys;
}

LoaderSimulation::LoaderSimulation(const FileSystem& fs, LoaderSystem system) : fs_(fs), system_(std::move(system)) {}

Result<ElfInfo> LoaderSimulation::elf_of(const std::string& path) const {
  auto it = elf_cache_.find(path);
  if (it != elf_cache_.end()) return it->second;
  auto info = fs_.stat(path);
  Result<ElfInfo> parsed = info ? parse_elf([&](uint64_t offset, size_t n) { return fs_.read_range(path, offset, n); },
                                            info->size)
                                : Result<ElfInfo>(info.error());
  elf_cache_.emplace(path, parsed);
  return parsed;
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

Resolution LoaderSimulation::locate(const std::string& name, int requester, const std::string& kind) const {
  Resolution r;
  r.name = name;
  r.kind = kind;
  r.requester = requester >= 0 && requester < static_cast<int>(objects_.size()) ? objects_[requester].path : "";

  // Checks one candidate file; returns true when it is usable.
  bool stopped = false;  // an invalid ELF file ends the search with an error
  std::set<std::string> listed;
  auto consider = [&](const std::string& path, SearchRule rule, const std::string& source, bool list_if_missing) {
    if (stopped) return;
    Candidate c{path, rule, source, "", false};
    auto info = fs_.stat(path);
    if (!info || info->type != FileType::kRegular) {
      if (!r.found && list_if_missing) {
        c.outcome = info ? "not a regular file" : "missing";
        r.candidates.push_back(c);
      }
      return;
    }
    auto elf = elf_of(path);
    if (!elf) {
      if (r.found) {
        if (listed.insert(path).second) {
          c.outcome = "not an ELF file (" + elf.error().message + "); would have stopped the search";
          r.candidates.push_back(c);
        }
        return;
      }
      c.outcome = "exists but is not a loadable ELF file (" + elf.error().message + "): ld.so stops here with an error";
      r.candidates.push_back(c);
      r.error = path + ": " + elf.error().message + " (ld.so reports this and does not search further)";
      stopped = true;
      return;
    }
    if (elf->is_64bit != system_.is_64bit || elf->machine != system_.machine) {
      if (listed.insert(path).second) {
        c.outcome = "skipped: " + class_name(elf->is_64bit) + " " + elf_machine_name(elf->machine) +
                    ", the process is " + class_name(system_.is_64bit) + " " + elf_machine_name(system_.machine);
        r.candidates.push_back(c);
      }
      return;
    }
    c.exists = true;
    if (!r.found) {
      r.found = true;
      r.path = path;
      r.rule = rule;
      r.rule_detail = source;
      auto canon = fs_.canonical(path);
      r.canonical = canon ? *canon : path;
      c.outcome = elf->problems.empty() ? "loads" : "loads, but damaged: " + elf->problems.front();
      listed.insert(path);
      r.candidates.push_back(c);
      return;
    }
    if (!listed.insert(path).second) return;
    auto canon = fs_.canonical(path);
    bool same = canon && *canon == r.canonical;
    c.outcome = std::string("loses: ") + search_rule_name(r.rule) + " found " +
                (same ? "the same file" : r.path) + " first";
    r.candidates.push_back(c);
  };

  // 0. A path.
  if (name.find('/') != std::string::npos) {
    std::string path = expand_tokens(name, requester);
    if (!paths::is_absolute(path)) path = paths::join(system_.cwd, path);
    auto canon = fs_.canonical(path);
    for (size_t i = 0; canon && i < objects_.size(); ++i) {
      if (objects_[i].canonical == *canon) {
        r.found = true;
        r.path = objects_[i].path;
        r.canonical = *canon;
        r.rule = SearchRule::kAlreadyLoaded;
        r.rule_detail = "the same file is already mapped (" + objects_[i].how + ")";
        return r;
      }
    }
    consider(path, SearchRule::kPath, "the name is a path", true);
    if (!r.found && r.error.empty()) r.error = path + ": cannot open shared object file: No such file or directory";
    return r;
  }

  // 1. Already loaded (SONAME or load name).
  int loaded = find_loaded(name);
  if (loaded >= 0) {
    r.found = true;
    r.path = objects_[loaded].path;
    r.canonical = objects_[loaded].canonical;
    r.rule = SearchRule::kAlreadyLoaded;
    r.rule_detail = "a mapped object has SONAME " + name + " (" + objects_[loaded].how + ")";
    r.candidates.push_back({r.path, SearchRule::kAlreadyLoaded, r.rule_detail, "loads (already mapped)", true});
    listed.insert(r.path);
  }

  std::vector<SearchList> lists;
  const MappedObject* req = requester >= 0 && requester < static_cast<int>(objects_.size()) ? &objects_[requester] : nullptr;
  // 2. DT_RPATH chain, only when the requester has no DT_RUNPATH.
  if (!req || !req->elf.has_runpath_tag) {
    bool did_main = false;
    for (int l = requester; l >= 0; l = objects_[l].loader) {
      const MappedObject& o = objects_[l];
      if (o.elf.has_runpath_tag || o.elf.rpath.empty()) continue;  // RUNPATH cancels an object's RPATH
      SearchList list{SearchRule::kRpath, "DT_RPATH of " + o.path, {}};
      for (const auto& entry : o.elf.rpath) list.dirs.emplace_back(expand_tokens(entry, l), entry);
      lists.push_back(list);
      if (l == 0) did_main = true;
    }
    if (!did_main && !objects_.empty() && !objects_[0].elf.has_runpath_tag && !objects_[0].elf.rpath.empty()) {
      SearchList list{SearchRule::kRpath, "DT_RPATH of the executable " + objects_[0].path, {}};
      for (const auto& entry : objects_[0].elf.rpath) list.dirs.emplace_back(expand_tokens(entry, 0), entry);
      lists.push_back(list);
    }
  }
  // 3. LD_LIBRARY_PATH ($ORIGIN there means the executable's directory).
  if (!system_.ld_library_path.empty()) {
    SearchList list{SearchRule::kLdLibraryPath, "LD_LIBRARY_PATH", {}};
    if (system_.secure) {
      r.notes.push_back("LD_LIBRARY_PATH is ignored: the program runs in secure-execution mode");
    } else {
      for (const auto& entry : system_.ld_library_path) {
        std::string dir = entry.empty() ? system_.cwd : expand_tokens(entry, objects_.empty() ? -1 : 0);
        list.dirs.emplace_back(dir, entry.empty() ? "(empty entry = current directory)" : entry);
      }
      lists.push_back(list);
    }
  }
  // 4. DT_RUNPATH of the requester only.
  if (req && req->elf.has_runpath_tag && !req->elf.runpath.empty()) {
    SearchList list{SearchRule::kRunpath, "DT_RUNPATH of " + req->path, {}};
    for (const auto& entry : req->elf.runpath) list.dirs.emplace_back(expand_tokens(entry, requester), entry);
    lists.push_back(list);
  }
  auto search_list = [&](const SearchList& list) {
    for (const auto& [dir, entry] : list.dirs) {
      std::string detail = list.source + (entry == dir ? " (" + dir + ")" : " (" + entry + " = " + dir + ")");
      for (const auto& hw : system_.hwcaps) {
        consider(paths::join(dir, "glibc-hwcaps/" + hw + "/" + name), list.rule, detail, false);
      }
      consider(paths::join(dir, name), list.rule, detail, true);
    }
  };
  for (const auto& list : lists) search_list(list);
  // 5. The cache.
  if (system_.cache) {
    LdCacheHit hit = ld_cache_lookup(*system_.cache, name, system_.is_64bit, system_.machine, system_.hwcaps);
    if (hit.entry) {
      consider(hit.entry->path, SearchRule::kCache,
               "/etc/ld.so.cache entry " + hit.entry->name + " (" + hit.entry->describe_flags() + ")", true);
    }
    for (const auto& [entry, why] : hit.skipped) {
      if (listed.insert(entry->path).second) {
        r.candidates.push_back({entry->path, SearchRule::kCache, "/etc/ld.so.cache entry (" + entry->describe_flags() + ")",
                                "skipped: " + why, false});
      }
    }
  } else {
    r.notes.push_back("no readable /etc/ld.so.cache: the cache step was skipped, as ld.so does");
  }
  // 6. Default directories.
  SearchList defaults{SearchRule::kDefault, "default directories (" + join(system_.default_dirs, ":") + ")", {}};
  for (const auto& d : system_.default_dirs) defaults.dirs.emplace_back(d, d);
  search_list(defaults);

  if (!r.found && r.error.empty()) r.error = name + ": cannot open shared object file: No such file or directory";
  return r;
}

std::optional<int> LoaderSimulation::map_one(const Resolution& r, int requester, const std::string& how) {
  if (!r.found) return std::nullopt;
  for (size_t i = 0; i < objects_.size(); ++i) {
    if (objects_[i].canonical == r.canonical) {
      if (std::find(objects_[i].load_names.begin(), objects_[i].load_names.end(), r.name) == objects_[i].load_names.end()) {
        objects_[i].load_names.push_back(r.name);
      }
      return static_cast<int>(i);
    }
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
      auto mapped = map_one(r, object, "DT_NEEDED of " + objects_[object].path);
      log_.push_back(std::move(r));
      if (mapped && objects_.size() > before) queue.push_back(*mapped);
    }
  }
}

Resolution LoaderSimulation::map_with_deps(const std::string& name, int requester, const std::string& kind) {
  size_t before = objects_.size();
  Resolution r = locate(name, requester, kind);
  std::string how = kind == "dlopen" && requester >= 0 ? "dlopen from " + objects_[requester].path : kind;
  auto mapped = map_one(r, requester, how);
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
  return start_synthetic(path, info, paths::parent(canon ? *canon : path)) >= 0 ? Result<int>(0)
                                                                                 : Result<int>(make_error(ErrorCode::kInternal, "start failed"));
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
  objects_.push_back(main);
  std::vector<int> queue = {0};
  for (const std::string& entry : system_.ld_preload) {
    size_t before = objects_.size();
    Resolution r = locate(expand_tokens(entry, 0), 0, "LD_PRELOAD");
    if (r.found && r.rule != SearchRule::kAlreadyLoaded) {
      r.rule_detail = std::string("LD_PRELOAD entry ") + entry + " (found by " + search_rule_name(r.rule) + ")";
      r.rule = SearchRule::kPreload;
    }
    auto mapped = map_one(r, 0, "LD_PRELOAD");
    log_.push_back(std::move(r));
    if (mapped && objects_.size() > before) queue.push_back(*mapped);
  }
  map_needed_breadth_first(queue);
  return 0;
}

Resolution LoaderSimulation::dlopen(const std::string& name, int caller) {
  return map_with_deps(name, caller, "dlopen");
}

}  // namespace cudnnup
