#include "shell/shell_env.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include "base/paths.h"
#include "base/strings.h"
#include "facts/cudnn_files.h"
#include "shell/shell_quote.h"

namespace cudnnup {
namespace {

enum class ListKind { kLoader, kLinkTime, kHeaders };


// Is this file one of the things the list is searched for, and is it cuDNN?
struct Relevance {
  bool relevant = false;
  bool cudnn = false;
};

Relevance classify(std::string_view raw_name, ListKind kind, bool windows) {
  std::string name = ascii_lower(raw_name);
  Relevance r;
  switch (kind) {
    case ListKind::kLoader:
    case ListKind::kLinkTime:
      r.relevant = is_library_file_name(raw_name, windows, kind == ListKind::kLinkTime);
      break;
    case ListKind::kHeaders:
      r.relevant = name.ends_with(".h");
      break;
  }
  r.cudnn = r.relevant && parse_cudnn_file_name(raw_name).has_value();
  return r;
}

struct DirContents {
  bool has_cudnn = false;
  bool has_others = false;
};

DirContents look_into(const FileSystem& fs, const std::string& dir, ListKind kind, bool windows) {
  DirContents out;
  auto entries = fs.list_dir(dir);
  if (!entries) return out;
  for (const auto& e : *entries) {
    if (e.type == FileType::kDirectory) continue;
    Relevance r = classify(e.name, kind, windows);
    if (!r.relevant) continue;
    (r.cudnn ? out.has_cudnn : out.has_others) = true;
  }
  return out;
}

// A path and, where it resolves, its canonical form: how two spellings of one dir are matched.
std::set<std::string> identities(const FileSystem& fs, const std::string& path) {
  std::set<std::string> out{paths::normalize(path)};
  if (auto c = fs.canonical(path); c) out.insert(paths::normalize(*c));
  return out;
}

bool intersects(const std::set<std::string>& a, const std::set<std::string>& b) {
  return std::any_of(a.begin(), a.end(), [&](const std::string& x) { return b.count(x) > 0; });
}


void plan_list(const FileSystem& fs, const Environment& env, const std::string& var, const std::string& selected,
               ListKind kind, const std::set<std::string>& others, EnvPlan& plan) {
  auto selected_ids = identities(fs, selected);
  std::vector<std::string> result{selected};
  for (const std::string& entry : env.get_list(var)) {
    if (entry.empty()) {
      result.push_back(entry);  // the user's choice; `cudnnup doctor` reports it
      continue;
    }
    auto ids = identities(fs, entry);
    if (intersects(ids, selected_ids)) continue;  // already first
    if (intersects(ids, others)) {
      plan.removed.push_back(var + ": " + entry + " (another cuDNN copy)");
      continue;
    }
    DirContents contents = look_into(fs, entry, kind, env.windows());
    if (contents.has_cudnn && !contents.has_others) {
      plan.removed.push_back(var + ": " + entry + " (holds only another cuDNN copy)");
      continue;
    }
    if (contents.has_cudnn) {
      plan.notes.push_back(var + ": kept " + entry +
                           " after the selected dir: it holds another cuDNN next to other libraries "
                           "(removing it would hide those too)");
    }
    result.push_back(entry);
  }
  plan.changes.push_back({var, join(result, std::string(1, env.list_separator()))});
}

}  // namespace

std::string quote_posix(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string posix_word(const std::string& s) {
  bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("/._+-=:,@%").find(c) != std::string_view::npos;
  });
  return plain ? s : quote_posix(s);
}

std::optional<Shell> parse_shell(std::string_view name) {
  if (name == "bash") return Shell::kBash;
  if (name == "zsh") return Shell::kZsh;
  if (name == "fish") return Shell::kFish;
  if (name == "pwsh" || name == "powershell") return Shell::kPwsh;
  if (name == "cmd") return Shell::kCmd;
  return std::nullopt;
}

const char* shell_name(Shell shell) {
  switch (shell) {
    case Shell::kBash: return "bash";
    case Shell::kZsh: return "zsh";
    case Shell::kFish: return "fish";
    case Shell::kPwsh: return "pwsh";
    case Shell::kCmd: return "cmd";
  }
  return "bash";
}

VersionDirs VersionDirs::of(const std::string& version_dir, bool windows) {
  VersionDirs d;
  d.root = version_dir;
  d.include = version_dir + "/include";
  d.lib = version_dir + (windows ? "/lib/x64" : "/lib");
  if (windows) d.bin = version_dir + "/bin";
  return d;
}

namespace {

// The identities (see identities() above) of every lib/include/bin dir of the given versions.
std::set<std::string> version_subdirs(const FileSystem& fs, const std::vector<std::string>& version_dirs, bool windows) {
  std::set<std::string> out;
  for (const auto& dir : version_dirs) {
    VersionDirs d = VersionDirs::of(dir, windows);
    for (const auto& p : {d.lib, d.include, d.bin}) {
      if (p.empty()) continue;
      auto ids = identities(fs, p);
      out.insert(ids.begin(), ids.end());
    }
  }
  return out;
}

// Under `system`: `var` without the entries in `store`; a change only when one was there.
void plan_list_without(const FileSystem& fs, const Environment& env, const std::string& var,
                       const std::set<std::string>& store, EnvPlan& plan) {
  auto value = env.get(var);
  if (!value) return;
  std::vector<std::string> kept;
  bool removed = false;
  for (const std::string& entry : env.get_list(var)) {
    if (!entry.empty() && intersects(identities(fs, entry), store)) {
      plan.removed.push_back(var + ": " + entry + " (a cudnnup store version)");
      removed = true;
      continue;
    }
    kept.push_back(entry);
  }
  if (!removed) return;
  // Nothing left: unset, since an empty CPATH or LIBRARY_PATH would name the working directory.
  if (kept.empty()) plan.changes.push_back({var, std::nullopt});
  else plan.changes.push_back({var, join(kept, std::string(1, env.list_separator()))});
}

const char* const kRootVars[] = {"CUDNN_PATH", "CUDNN_HOME"};

const char* loader_variable(bool windows) { return windows ? "PATH" : "LD_LIBRARY_PATH"; }
// What the compilers read: gcc and clang LIBRARY_PATH and CPATH; MSVC's cl and link LIB and
// INCLUDE, and ignore the others (https://learn.microsoft.com/en-us/cpp/build/reference/cl-environment-variables,
// https://learn.microsoft.com/en-us/cpp/build/reference/link-environment-variables).
const char* link_time_variable(bool windows) { return windows ? "LIB" : "LIBRARY_PATH"; }
const char* header_variable(bool windows) { return windows ? "INCLUDE" : "CPATH"; }

}  // namespace

std::vector<std::string> environment_variable_names(bool windows) {
  return {loader_variable(windows), link_time_variable(windows), header_variable(windows), kRootVars[0], kRootVars[1]};
}

EnvPlan plan_system_environment(const FileSystem& fs, const Environment& env, const EnvInputs& inputs) {
  bool windows = env.windows();
  std::set<std::string> store = version_subdirs(fs, inputs.other_version_dirs, windows);
  EnvPlan plan;
  for (const char* var : {loader_variable(windows), link_time_variable(windows), header_variable(windows)}) {
    plan_list_without(fs, env, var, store, plan);
  }
  std::set<std::string> roots;
  for (const auto& dir : inputs.other_version_dirs) {
    auto ids = identities(fs, dir);
    roots.insert(ids.begin(), ids.end());
  }
  for (const char* var : kRootVars) {
    auto value = env.get(var);
    if (value && !value->empty() && intersects(identities(fs, *value), roots)) {
      plan.removed.push_back(std::string(var) + ": " + *value + " (a cudnnup store version)");
      plan.changes.push_back({var, std::nullopt});
    }
  }
  return plan;
}

EnvPlan plan_environment(const FileSystem& fs, const Environment& env, const EnvInputs& inputs) {
  bool windows = env.windows();
  VersionDirs selected = VersionDirs::of(inputs.version_dir, windows);

  std::set<std::string> others = version_subdirs(fs, inputs.other_version_dirs, windows);
  auto add_other = [&](const std::string& dir) {
    auto ids = identities(fs, dir);
    others.insert(ids.begin(), ids.end());
  };
  for (const auto& dir : inputs.other_copy_dirs) add_other(dir);
  // Never remove the selected version through an alias of it (`current` may point at it).
  for (const auto& p : {selected.lib, selected.include, selected.bin}) {
    if (p.empty()) continue;
    for (const auto& id : identities(fs, p)) others.erase(id);
  }

  EnvPlan plan;
  plan_list(fs, env, loader_variable(windows), selected.loader_dir(), ListKind::kLoader, others, plan);
  plan_list(fs, env, link_time_variable(windows), selected.lib, ListKind::kLinkTime, others, plan);
  plan_list(fs, env, header_variable(windows), selected.include, ListKind::kHeaders, others, plan);
  for (const char* var : kRootVars) plan.changes.push_back({var, selected.root});
  return plan;
}

Result<std::string> render_environment(const EnvPlan& plan, Shell shell, const RenderOptions& options) {
  std::string out;
  if (options.comments) {
    if (!options.header.empty()) out += shell_comment(shell, options.header, options.header_detail);
    for (const auto& r : plan.removed) out += shell_comment(shell, "removed ", r);
    for (const auto& n : plan.notes) out += shell_comment(shell, "", n);
  }
  for (const auto& c : plan.changes) {
    auto line = shell_assign(shell, c.name, c.value);
    if (!line) return line.error();
    out += *line;
  }
  return out;
}

std::map<std::string, std::string> apply_environment(const Environment& env, const EnvPlan& plan) {
  std::map<std::string, std::string> vars = env.vars;
  for (const auto& c : plan.changes) {
    std::string key = c.name;
    if (env.windows()) key = ascii_upper(key);
    if (c.value) vars[key] = *c.value;
    else vars.erase(key);
  }
  return vars;
}

}  // namespace cudnnup
