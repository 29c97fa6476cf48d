// LoaderSimulation::locate: one request searched the way _dl_map_object and open_path do it
// (glibc elf/dl-load.c). The search lists, the per-directory subdirectories and the judgement of
// each file of the right name live here; mapping lives in glibc_resolver.cc.
#include <algorithm>
#include <set>

#include "base/paths.h"
#include "base/strings.h"
#include "loader/glibc_resolver.h"

namespace cudnnup {
namespace {

std::string class_name(bool is_64bit) { return is_64bit ? "64-bit" : "32-bit"; }

// One ordered list of directories with where it came from.
struct SearchEntry {
  std::string dir;    // expanded, absolute
  std::string entry;  // as written
  int index = -1;     // position in LD_LIBRARY_PATH (other lists: -1)
};
struct SearchList {
  SearchRule rule;
  std::string source;  // "DT_RPATH of X"
  std::vector<SearchEntry> dirs;
};

// What open_verify() makes of a file of the right name.
enum class Verdict { kMissing, kSkip, kUse, kFail };
struct Judgement {
  Verdict verdict = Verdict::kMissing;
  LoadProblem problem = LoadProblem::kNone;
  std::string detail;
};

}  // namespace

// The search for one request; `r` is filled as candidates are judged.
class CandidateSearch {
 public:
  CandidateSearch(const LoaderSimulation& sim, Resolution& r) : sim_(sim), r_(r) {}

  bool stopped() const { return stopped_; }

  // A directory search entry as ld.so resolves it: an empty entry is the current directory, a
  // relative one is relative to it (no canonicalisation: ld.so uses the text as given).
  std::string directory_of(const std::string& expanded) const {
    if (expanded.empty()) return sim_.system_.cwd;
    return paths::is_absolute(expanded) ? expanded : paths::join(sim_.system_.cwd, expanded);
  }

  void search_list(const SearchList& list) {
    for (const SearchEntry& e : list.dirs) {
      // Where the candidate came from, in words: made only for a candidate that gets a record.
      auto detail = [&] {
        std::string shown = e.entry == e.dir ? e.dir : (e.entry.empty() ? "empty entry = current directory " + e.dir : e.entry + " = " + e.dir);
        return list.source + " (" + shown + ")";
      };
      for (const auto& d : sim_.existing_subdirs(e.dir)) consider_from(paths::join(d, r_.name), list.rule, detail, e, false);
      consider_from(paths::join(e.dir, r_.name), list.rule, detail, e, true);
    }
  }

  // Judges one candidate file and records it.
  void consider(const std::string& path, SearchRule rule, const std::string& source, const SearchEntry& entry,
                bool list_if_missing) {
    consider_from(path, rule, [&] { return source; }, entry, list_if_missing);
  }
  // The same, with `source()` making the words only when a record is made.
  template <typename Source>
  void consider_from(const std::string& path, SearchRule rule, const Source& source, const SearchEntry& entry,
                     bool list_if_missing) {
    if (stopped_) return;
    Judgement j = judge(path);
    // Most candidates are missing files nobody will see listed: decided before building a record.
    if (j.verdict == Verdict::kMissing && (r_.found || !list_if_missing)) return;
    Candidate c;
    c.path = path;
    c.rule = rule;
    c.source = source();
    if (rule == SearchRule::kLdLibraryPath) {
      c.entry_index = entry.index;
      c.entry = entry.entry;
    }
    c.problem = j.problem;
    c.problem_detail = j.detail;
    switch (j.verdict) {
      case Verdict::kMissing:
        if (!r_.found && list_if_missing) {
          c.outcome = "missing";
          r_.candidates.push_back(c);
        }
        return;
      case Verdict::kSkip:
        if (listed_.insert(path).second) {
          c.outcome = "skipped: " + j.detail;
          r_.candidates.push_back(c);
        }
        return;
      case Verdict::kFail:
        fail(c, j);
        return;
      case Verdict::kUse:
        use(c);
        return;
    }
  }

  void winner_already_loaded(int object) {
    const MappedObject& o = sim_.objects_[object];
    r_.found = true;
    r_.path = o.path;
    r_.canonical = o.canonical;
    r_.rule = SearchRule::kAlreadyLoaded;
    r_.rule_detail = "a mapped object has SONAME " + r_.name + " (" + o.how + ")";
    Candidate c;
    c.path = r_.path;
    c.rule = SearchRule::kAlreadyLoaded;
    c.source = r_.rule_detail;
    c.outcome = "loads (already mapped)";
    c.exists = true;
    r_.candidates.push_back(c);
    listed_.insert(r_.path);
  }

 private:
  Judgement judge(const std::string& path) const {
    const FileSystem& fs = sim_.fs_;
    auto info = fs.stat(path);
    if (!info) {
      if (info.error().code == ErrorCode::kPermission) return {Verdict::kSkip, LoadProblem::kUnreadable, "unreadable (permission denied); ld.so searches on"};
      return {};
    }
    switch (info->type) {
      case FileType::kDirectory:
        return {Verdict::kFail, LoadProblem::kDirectory, "a directory: ld.so cannot read file data (Is a directory)"};
      case FileType::kFifo:
        return {Verdict::kFail, LoadProblem::kFifo,
                "a FIFO (named pipe): ld.so's open() blocks until something writes to it, so the process hangs"};
      case FileType::kOther:
        return {Verdict::kFail, LoadProblem::kSpecialFile, "a socket or device file: ld.so cannot load it"};
      default: break;
    }
    auto elf = sim_.elf_of(path);
    if (!elf) {
      if (elf.error().code == ErrorCode::kPermission) return {Verdict::kSkip, LoadProblem::kUnreadable, "unreadable (permission denied); ld.so searches on"};
      LoadProblem p = info->size == 0 ? LoadProblem::kEmpty
                      : info->size < 64 ? LoadProblem::kTruncated
                                        : LoadProblem::kNotBinary;
      return {Verdict::kFail, p, elf.error().message};
    }
    const LoaderSystem& sys = sim_.system_;
    if (elf->is_64bit != sys.is_64bit) {
      return {Verdict::kSkip, LoadProblem::kWrongClass,
              class_name(elf->is_64bit) + " " + elf_machine_name(elf->machine) + ", the process is " +
                  class_name(sys.is_64bit) + " " + elf_machine_name(sys.machine)};
    }
    if (elf->machine != sys.machine) {
      return {Verdict::kSkip, LoadProblem::kWrongMachine,
              class_name(elf->is_64bit) + " " + elf_machine_name(elf->machine) + ", the process is " +
                  class_name(sys.is_64bit) + " " + elf_machine_name(sys.machine)};
    }
    if (!elf->unmappable.empty()) return {Verdict::kFail, LoadProblem::kTruncated, elf->unmappable};
    return {Verdict::kUse, LoadProblem::kNone, elf->problems.empty() ? "" : elf->problems.front()};
  }

  void fail(Candidate& c, const Judgement& j) {
    if (r_.found) {  // never reached: the winner came first
      if (listed_.insert(c.path).second) {
        c.outcome = "never reached (" + j.detail + "; it would have stopped the search)";
        r_.candidates.push_back(c);
      }
      if (j.problem == LoadProblem::kFifo) r_.hazards.push_back(c.path + " is a FIFO of the library's name (" + c.source + ")");
      return;
    }
    c.outcome = j.detail + ": ld.so stops here with an error";
    r_.candidates.push_back(c);
    r_.failed_at = c.path;
    r_.error = c.path + ": " + j.detail + " (ld.so reports this and does not search further)";
    if (j.problem == LoadProblem::kFifo) {
      r_.hazards.push_back(c.path + " is a FIFO of the library's name (" + c.source +
                           "): a process that searches there hangs in open()");
    }
    stopped_ = true;
  }

  void use(Candidate& c) {
    c.exists = true;
    const FileSystem& fs = sim_.fs_;
    if (!r_.found) {
      r_.found = true;
      r_.path = c.path;
      r_.rule = c.rule;
      r_.rule_detail = c.source;
      auto canon = fs.canonical(c.path);
      r_.canonical = canon ? *canon : c.path;
      c.outcome = c.problem_detail.empty() ? "loads" : "loads, but damaged: " + c.problem_detail;
      listed_.insert(c.path);
      r_.candidates.push_back(c);
      return;
    }
    if (!listed_.insert(c.path).second) return;
    auto canon = fs.canonical(c.path);
    bool same = canon && *canon == r_.canonical;
    c.outcome = std::string("loses: ") + search_rule_name(r_.rule) + " found " + (same ? "the same file" : r_.path) + " first";
    r_.candidates.push_back(c);
  }

  const LoaderSimulation& sim_;
  Resolution& r_;
  bool stopped_ = false;
  std::set<std::string> listed_;
};

namespace {

// 2. The DT_RPATH chain, only when the requester has no DT_RUNPATH.
void add_rpath_lists(const std::vector<MappedObject>& objects, int requester,
                     const std::function<std::string(const std::string&, int)>& expand, std::vector<SearchList>& lists) {
  const MappedObject* req = requester >= 0 && requester < int(objects.size()) ? &objects[requester] : nullptr;
  if (req && req->elf.has_runpath_tag) return;
  auto add = [&](int l, const std::string& source) {
    SearchList list{SearchRule::kRpath, source, {}};
    for (const auto& entry : objects[l].elf.rpath) list.dirs.push_back({expand(entry, l), entry, -1});
    lists.push_back(list);
  };
  bool did_main = false;
  for (int l = requester; l >= 0; l = objects[l].loader) {
    const MappedObject& o = objects[l];
    if (o.elf.has_runpath_tag || o.elf.rpath.empty()) continue;  // RUNPATH cancels an object's RPATH
    add(l, "DT_RPATH of " + o.path);
    if (l == 0) did_main = true;
  }
  if (!did_main && !objects.empty() && !objects[0].elf.has_runpath_tag && !objects[0].elf.rpath.empty()) {
    add(0, "DT_RPATH of the executable " + objects[0].path);
  }
}

}  // namespace

Resolution LoaderSimulation::locate(const std::string& name, int requester, const std::string& kind) const {
  Resolution r;
  r.name = name;
  r.kind = kind;
  r.requester = requester >= 0 && requester < int(objects_.size()) ? objects_[requester].path : "";
  CandidateSearch search(*this, r);
  auto expand = [this](const std::string& text, int object) { return expand_tokens(text, object); };

  // 0. A path: the same file already mapped is reused, else it is opened as given.
  if (name.find('/') != std::string::npos) {
    std::string path = search.directory_of(expand(name, requester));
    auto canon = fs_.canonical(path);
    if (int i = canon ? find_mapped_file(*canon) : -1; i >= 0) {
      r.found = true;
      r.path = objects_[i].path;
      r.canonical = *canon;
      r.rule = SearchRule::kAlreadyLoaded;
      r.rule_detail = "the same file is already mapped (" + objects_[i].how + ")";
      return r;
    }
    search.consider(path, SearchRule::kPath, "the name is a path", {path, name, -1}, true);
    if (!r.found && r.error.empty()) r.error = path + ": cannot open shared object file: No such file or directory";
    return r;
  }

  // 1. Already loaded (SONAME or load name): the answer, and ld.so searches no further. The
  // search is still listed so the losers show (which's answer for a preloaded copy, a copy's own
  // sub-library losing to a preloaded one), except for a name some object already asked for as
  // DT_NEEDED (libc.so.6 for the seventh time): which reports the first request of a name, so
  // the repeats are never shown and only their answer counts.
  if (int loaded = find_loaded(name); loaded >= 0) {
    search.winner_already_loaded(loaded);
    if (kind == "DT_NEEDED" && std::any_of(log_.begin(), log_.end(), [&](const Resolution& earlier) {
          return earlier.kind == "DT_NEEDED" && earlier.name == name;
        })) {
      return r;
    }
  }

  std::vector<SearchList> lists;
  add_rpath_lists(objects_, requester, expand, lists);
  // 3. LD_LIBRARY_PATH ($ORIGIN there means the executable's directory).
  if (!system_.ld_library_path.empty()) {
    if (system_.secure) {
      r.notes.push_back("LD_LIBRARY_PATH is ignored: the program runs in secure-execution mode");
    } else {
      SearchList list{SearchRule::kLdLibraryPath, "LD_LIBRARY_PATH", {}};
      for (size_t i = 0; i < system_.ld_library_path.size(); ++i) {
        const std::string& entry = system_.ld_library_path[i];
        list.dirs.push_back({expand(entry, objects_.empty() ? -1 : 0), entry, int(i)});
      }
      lists.push_back(list);
    }
  }
  // 4. DT_RUNPATH of the requester only.
  const MappedObject* req = requester >= 0 && requester < int(objects_.size()) ? &objects_[requester] : nullptr;
  if (req && req->elf.has_runpath_tag && !req->elf.runpath.empty()) {
    SearchList list{SearchRule::kRunpath, "DT_RUNPATH of " + req->path, {}};
    for (const auto& entry : req->elf.runpath) list.dirs.push_back({expand(entry, requester), entry, -1});
    lists.push_back(list);
  }
  for (auto& list : lists) {
    for (auto& e : list.dirs) e.dir = search.directory_of(e.dir);  // "" and relative entries: the current directory
    search.search_list(list);
  }
  // 5. The cache.
  if (system_.cache) {
    LdCacheHit hit = ld_cache_lookup(*system_.cache, name, system_.is_64bit, system_.machine, system_.hwcaps);
    if (hit.entry) {
      search.consider(hit.entry->path, SearchRule::kCache,
                      "/etc/ld.so.cache entry " + hit.entry->name + " (" + hit.entry->describe_flags() + ")",
                      {paths::parent(hit.entry->path), hit.entry->path, -1}, true);
    }
    for (const auto& [entry, why] : hit.skipped) {
      Candidate c;
      c.path = entry->path;
      c.rule = SearchRule::kCache;
      c.source = "/etc/ld.so.cache entry (" + entry->describe_flags() + ")";
      c.outcome = "skipped: " + why;
      bool listed = std::any_of(r.candidates.begin(), r.candidates.end(), [&](const Candidate& x) { return x.path == c.path; });
      if (!listed) r.candidates.push_back(c);
    }
  } else {
    r.notes.push_back("no readable /etc/ld.so.cache: the cache step was skipped, as ld.so does");
  }
  // 6. Default directories.
  SearchList defaults{SearchRule::kDefault, "default directories (" + join(system_.default_dirs, ":") + ")", {}};
  for (const auto& d : system_.default_dirs) defaults.dirs.push_back({d, d, -1});
  search.search_list(defaults);

  if (!r.found && r.error.empty()) r.error = name + ": cannot open shared object file: No such file or directory";
  return r;
}

}  // namespace cudnnup
