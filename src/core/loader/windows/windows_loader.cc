#include "loader/windows/windows_loader.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "base/paths.h"
#include "base/strings.h"

namespace cudnnup {
namespace {

constexpr int kMaxDependencyDepth = 4;


// DLLs every Windows installation has in System32, and the API-set names the loader maps
// without a file. A dependency on one of them is taken as satisfied even when the FileSystem we
// look at has no System32 (tests, or a machine seen from outside).
bool is_os_dll(const std::string& name) {
  static const std::set<std::string> os = {
      "kernel32.dll", "kernelbase.dll", "ntdll.dll",    "msvcrt.dll",  "user32.dll",   "advapi32.dll",
      "gdi32.dll",    "shell32.dll",    "ole32.dll",    "oleaut32.dll", "ws2_32.dll",  "bcrypt.dll",
      "crypt32.dll",  "setupapi.dll",   "version.dll",  "shlwapi.dll", "rpcrt4.dll",   "sechost.dll",
      "combase.dll",  "imm32.dll",      "winmm.dll",    "dbghelp.dll", "psapi.dll",    "cfgmgr32.dll",
      "ucrtbase.dll", "userenv.dll",    "iphlpapi.dll", "secur32.dll", "comdlg32.dll", "dxgi.dll"};
  std::string n = ascii_lower(name);
  return os.count(n) > 0 || n.rfind("api-ms-win-", 0) == 0 || n.rfind("ext-ms-", 0) == 0;
}

struct FileCheck {
  DllLoadProblem problem = DllLoadProblem::kNone;
  std::string detail;
  std::optional<PeVersion> version;
};

class Resolver {
 public:
  Resolver(const FileSystem& fs, const DllSearchContext& ctx) : fs_(fs), ctx_(ctx) { build_search_dirs(); }

  const std::vector<DllSearchDir>& search_dirs() const { return dirs_; }

  // The file a directory holds under `name`, compared case-insensitively like NTFS.
  std::optional<std::string> find_in_dir(const std::string& dir, const std::string& name) const {
    std::string exact = paths::join(dir, name);
    if (fs_.is_file(exact)) return exact;
    auto entries = fs_.list_dir(dir);
    if (!entries) return std::nullopt;
    std::string want = ascii_lower(name);
    for (const auto& e : *entries) {
      if (ascii_lower(e.name) != want) continue;
      std::string full = paths::join(dir, e.name);
      if (fs_.is_file(full)) return full;
    }
    return std::nullopt;
  }

  std::optional<std::string> already_loaded(const std::string& name) const {
    for (const auto& p : ctx_.already_loaded) {
      if (ascii_lower(std::string(paths::basename(p))) == ascii_lower(name)) return p;
    }
    return std::nullopt;
  }

  bool is_known_dll(const std::string& name) const {
    for (const auto& k : ctx_.known_dlls) {
      if (ascii_lower(k) == ascii_lower(name)) return true;
    }
    return false;
  }

  // Where the search finds `name` first: (path, index in dirs_), before any load check.
  std::optional<std::pair<std::string, int>> first_in_search(const std::string& name) const {
    for (size_t i = 0; i < dirs_.size(); ++i) {
      if (auto p = find_in_dir(dirs_[i].dir, name)) return std::make_pair(*p, int(i));
    }
    return std::nullopt;
  }

  FileCheck check(const std::string& path, int depth) {
    std::string key = ascii_lower(paths::normalize(path));
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    memo_[key] = FileCheck{};  // a dependency cycle counts as fine; the loader handles cycles
    FileCheck result = check_uncached(path, depth);
    memo_[key] = result;
    return result;
  }

 private:
  FileCheck check_uncached(const std::string& path, int depth) {
    FileCheck out;
    auto info = fs_.stat(path);
    if (!info) {
      out.problem = DllLoadProblem::kUnreadable;
      out.detail = info.error().message;
      return out;
    }
    if (info->size == 0) {
      out.problem = DllLoadProblem::kEmpty;
      out.detail = "the file is empty (0 bytes)";
      return out;
    }
    RangeReader reader = [this, &path](uint64_t offset, size_t n) { return fs_.read_range(path, offset, n); };
    auto pe = parse_pe(reader, info->size);
    if (!pe) {
      out.problem = pe.error().code == ErrorCode::kCorrupt ? DllLoadProblem::kNotPe : DllLoadProblem::kUnreadable;
      out.detail = pe.error().message;
      return out;
    }
    out.version = pe->file_version;
    if (pe->machine != ctx_.machine) {
      out.problem = DllLoadProblem::kWrongMachine;
      out.detail = "built for " + pe_machine_name(pe->machine) + ", the process is " + pe_machine_name(ctx_.machine);
      return out;
    }
    for (const auto& p : pe->problems) {
      if (p.rfind("truncated", 0) == 0) {
        out.problem = DllLoadProblem::kTruncated;
        out.detail = p;
        return out;
      }
    }
    if (depth >= kMaxDependencyDepth) return out;
    // Imports are looked up by name with the same search as the DLL itself (Microsoft: "the
    // system searches for the dependent DLLs as if they were loaded by using only their module
    // names ... even if the first DLL was loaded by specifying a full path").
    for (const auto& dep : pe->imports) {
      if (is_os_dll(dep) || is_known_dll(dep) || already_loaded(dep)) continue;
      auto found = first_in_search(dep);
      if (!found) {
        out.problem = DllLoadProblem::kMissingDependency;
        out.detail = "it imports " + dep + ", which is in none of the directories this process searches";
        return out;
      }
      FileCheck sub = check(found->first, depth + 1);
      if (sub.problem != DllLoadProblem::kNone) {
        out.problem = DllLoadProblem::kBrokenDependency;
        out.detail = "it imports " + dep + "; the copy the search finds (" + found->first + ") cannot load: " + sub.detail;
        return out;
      }
    }
    return out;
  }

  void add_dir(const std::string& dir, const std::string& rule, SearchRule kind) {
    if (dir.empty()) return;
    dirs_.push_back({paths::normalize(dir), rule, kind});
  }

  void build_search_dirs() {
    if (ctx_.mode == DllSearchMode::kDefaultDirs) {
      add_dir(ctx_.dll_load_dir, "folder of the module being loaded (LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR)", SearchRule::kDllLoadDir);
      add_dir(ctx_.application_dir, "application directory", SearchRule::kApplicationDir);
      for (size_t i = 0; i < ctx_.user_dirs.size(); ++i) {
        add_dir(ctx_.user_dirs[i], "added with AddDllDirectory/os.add_dll_directory (#" + std::to_string(i + 1) + ")",
                SearchRule::kAddDllDirectory);
      }
      add_dir(ctx_.system32_dir, "system directory (System32)", SearchRule::kSystem32);
      return;
    }
    bool has_set_dir = !ctx_.set_dll_directory.empty();
    add_dir(ctx_.application_dir, "application directory", SearchRule::kApplicationDir);
    if (has_set_dir) add_dir(ctx_.set_dll_directory, "SetDllDirectory", SearchRule::kSetDllDirectory);
    if (!ctx_.safe_dll_search_mode && !has_set_dir) {
      add_dir(ctx_.current_dir, "current directory (SafeDllSearchMode off)", SearchRule::kCurrentDir);
    }
    add_dir(ctx_.system32_dir, "system directory (System32)", SearchRule::kSystem32);
    add_dir(ctx_.system16_dir, "16-bit system directory", SearchRule::kSystem16);
    add_dir(ctx_.windows_dir, "Windows directory", SearchRule::kWindowsDir);
    if (ctx_.safe_dll_search_mode && !has_set_dir) add_dir(ctx_.current_dir, "current directory", SearchRule::kCurrentDir);
    for (size_t i = 0; i < ctx_.path.size(); ++i) {
      add_dir(ctx_.path[i], "PATH entry " + std::to_string(i + 1), SearchRule::kPathVariable);
    }
  }

  const FileSystem& fs_;
  const DllSearchContext& ctx_;
  std::vector<DllSearchDir> dirs_;
  std::map<std::string, FileCheck> memo_;
};

std::string describe_problem(const DllCandidate& c) {
  return c.path + " " + c.problem_detail + " (LoadLibrary fails with error " +
         std::to_string(win32_error_for(c.problem)) + ")";
}

}  // namespace

int win32_error_for(DllLoadProblem problem) {
  switch (problem) {
    case DllLoadProblem::kNone: return 0;
    case DllLoadProblem::kMissingDependency:
    case DllLoadProblem::kBrokenDependency: return 126;  // ERROR_MOD_NOT_FOUND
    case DllLoadProblem::kUnreadable: return 5;          // ERROR_ACCESS_DENIED
    default: return 193;                                 // ERROR_BAD_EXE_FORMAT
  }
}

const char* dll_load_problem_name(DllLoadProblem problem) {
  switch (problem) {
    case DllLoadProblem::kNone: return "none";
    case DllLoadProblem::kEmpty: return "empty";
    case DllLoadProblem::kNotPe: return "not_pe";
    case DllLoadProblem::kWrongMachine: return "wrong_machine";
    case DllLoadProblem::kTruncated: return "truncated";
    case DllLoadProblem::kMissingDependency: return "missing_dependency";
    case DllLoadProblem::kBrokenDependency: return "broken_dependency";
    case DllLoadProblem::kUnreadable: return "unreadable";
  }
  return "unknown";
}

DllResolution resolve_dll(const FileSystem& fs, const std::string& dll_name, const DllSearchContext& ctx,
                          const std::vector<std::string>& extra_places) {
  Resolver r(fs, ctx);
  DllResolution out;
  out.name = dll_name;
  out.search_dirs = r.search_dirs();

  // Every file of this name: the searched directories first (in order), then the places this
  // mode skips (PATH and the current dir in DEFAULT_DIRS mode), then the extra places.
  std::vector<DllCandidate> all;
  std::set<std::string> seen;
  auto add = [&](const std::string& dir, const std::string& rule, SearchRule kind, int position) {
    if (dir.empty()) return;
    auto file = r.find_in_dir(paths::normalize(dir), dll_name);
    if (!file) return;
    if (!seen.insert(ascii_lower(paths::normalize(*file))).second) return;
    DllCandidate c;
    c.path = *file;
    c.rule = rule;
    c.kind = kind;
    c.search_position = position;
    all.push_back(std::move(c));
  };
  for (size_t i = 0; i < out.search_dirs.size(); ++i) {
    add(out.search_dirs[i].dir, out.search_dirs[i].rule, out.search_dirs[i].kind, int(i));
  }
  if (ctx.mode == DllSearchMode::kDefaultDirs) {
    for (size_t i = 0; i < ctx.path.size(); ++i) add(ctx.path[i], "PATH entry " + std::to_string(i + 1), SearchRule::kPathVariable, -1);
    add(ctx.current_dir, "current directory", SearchRule::kCurrentDir, -1);
  }
  for (const auto& place : extra_places) add(place, "found by cudnnup outside the search", SearchRule::kNotSearched, -1);
  for (auto& c : all) {
    FileCheck check = r.check(c.path, 0);
    c.problem = check.problem;
    c.problem_detail = check.detail;
    c.file_version = check.version;
  }

  std::string rule_text;
  if (auto loaded = r.already_loaded(dll_name)) {
    DllCandidate w;
    w.path = *loaded;
    w.rule = "already loaded in the process";
    w.kind = SearchRule::kAlreadyLoaded;
    w.chosen = true;
    // It is loaded, so it loads; its file version still says which release it is (a module
    // preloaded by path from a folder outside this search: onnxruntime.preload_dlls()).
    w.file_version = r.check(*loaded, 0).version;
    out.winner = w;
    rule_text = "a module named " + dll_name + " is already loaded in this process (" + *loaded +
                "); Windows hands out that one without searching";
  } else if (r.is_known_dll(dll_name)) {
    DllCandidate w;
    w.path = paths::join(paths::normalize(ctx.system32_dir), dll_name);
    w.rule = "KnownDLLs";
    w.kind = SearchRule::kKnownDll;
    w.chosen = true;
    out.winner = w;
    rule_text = dll_name + " is a KnownDLL: Windows always uses the System32 copy";
  } else {
    for (auto& c : all) {
      if (c.search_position >= 0) {
        c.chosen = true;
        out.winner = c;
        break;
      }
    }
  }

  for (const auto& c : all) {
    if (c.chosen) continue;
    DllCandidate loser = c;
    if (!rule_text.empty()) {
      loser.why_not = rule_text;
    } else if (c.search_position >= 0) {
      loser.why_not = "an earlier directory in the search order has " + dll_name + " (" + out.winner->path + ", " +
                      out.winner->rule + ")";
    } else if (ctx.mode == DllSearchMode::kDefaultDirs && c.rule.rfind("PATH", 0) == 0) {
      loser.why_not = "it is on PATH, but this process loads DLLs with LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, which "
                      "never searches PATH (Python 3.8+ extension modules); add the folder with "
                      "os.add_dll_directory() instead";
    } else if (ctx.mode == DllSearchMode::kDefaultDirs && c.rule == "current directory") {
      loser.why_not = "LOAD_LIBRARY_SEARCH_DEFAULT_DIRS never searches the current directory";
    } else {
      loser.why_not = "its folder is not in this process's DLL search";
    }
    out.losers.push_back(std::move(loser));
  }

  if (!out.winner) {
    out.win32_error = 126;
    out.explanation = dll_name + " is in none of the " + std::to_string(out.search_dirs.size()) +
                      " directories this process searches, so LoadLibrary fails with error 126 "
                      "(ERROR_MOD_NOT_FOUND)";
    if (!out.losers.empty()) out.explanation += "; copies exist elsewhere: " + out.losers.front().why_not;
    return out;
  }
  const DllCandidate& w = *out.winner;
  out.win32_error = win32_error_for(w.problem);
  out.loads = w.problem == DllLoadProblem::kNone;
  if (!rule_text.empty()) {
    out.explanation = rule_text;
  } else if (out.loads) {
    out.explanation = dll_name + " loads from " + w.path + " (" + w.rule + ")";
  } else {
    out.explanation = "LoadLibrary picks " + describe_problem(w) +
                      "; Windows does not go on to the next directory, so the load fails";
    for (const auto& l : out.losers) {
      if (l.search_position > w.search_position && l.problem == DllLoadProblem::kNone) {
        out.explanation += " although " + l.path + " (" + l.rule + ") would load";
        break;
      }
    }
  }
  return out;
}

DllSearchContext python_extension_context(const std::string& python_exe_dir, const std::string& pyd_dir,
                                          const std::vector<std::string>& add_dll_directories) {
  DllSearchContext ctx;
  ctx.mode = DllSearchMode::kDefaultDirs;
  ctx.application_dir = python_exe_dir;
  ctx.dll_load_dir = pyd_dir;
  ctx.user_dirs = add_dll_directories;
  return ctx;
}

std::vector<std::string> conda_python_dll_directories(const std::string& prefix) {
  return {paths::join(prefix, "Library/mingw-w64/bin"), paths::join(prefix, "Library/usr/bin"),
          paths::join(prefix, "Library/bin"), paths::join(prefix, "Scripts"), paths::join(prefix, "bin")};
}

std::vector<std::string> torch_dll_directories(const FileSystem& fs, const Environment& env,
                                               const std::string& torch_dir, const std::string& prefix,
                                               const std::string& base_prefix,
                                               const std::string& torch_cuda_version) {
  std::vector<std::string> dirs;
  auto add_if_dir = [&](const std::string& d) {
    if (fs.is_dir(d) && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  };
  std::string lib = paths::join(torch_dir, "lib");
  add_if_dir(lib);
  add_if_dir(paths::join(prefix, "Library/bin"));
  if (!base_prefix.empty() && base_prefix != prefix) add_if_dir(paths::join(base_prefix, "Library/bin"));
  // torch adds the toolkit only when its own lib has no CUDA runtime (a non-bundled build).
  bool has_cudart = false;
  if (auto entries = fs.list_dir(lib)) {
    for (const auto& e : *entries) {
      std::string n = ascii_lower(e.name);
      if (n.rfind("cudart64", 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == ".dll") has_cudart = true;
    }
  }
  if (!has_cudart && !torch_cuda_version.empty()) {
    std::string var = "CUDA_PATH_V" + torch_cuda_version;
    std::replace(var.begin(), var.end(), '.', '_');
    std::string root;
    if (auto v = env.get(var)) {
      root = paths::normalize(*v);
    } else {
      std::string program_files = env.get("PROGRAMFILES").value_or("C:/Program Files");
      root = paths::join(paths::normalize(program_files), "NVIDIA GPU Computing Toolkit/CUDA/v" + torch_cuda_version);
    }
    add_if_dir(paths::join(root, "bin"));
  }
  return dirs;
}

std::vector<std::string> torch_preloaded_dlls(const FileSystem& fs, const std::string& torch_dir) {
  std::vector<std::string> out;
  std::string lib = paths::join(torch_dir, "lib");
  auto entries = fs.list_dir(lib);
  if (!entries) return out;
  for (const auto& e : *entries) {
    std::string n = ascii_lower(e.name);
    if (n.size() > 4 && n.substr(n.size() - 4) == ".dll" && e.type != FileType::kDirectory) {
      out.push_back(paths::join(lib, e.name));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cudnnup
