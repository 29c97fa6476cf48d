#include "diagnose/load_checks.h"

#include <algorithm>
#include <optional>
#include <set>

#include "base/paths.h"
#include "diagnose/finding_text.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"
#include "shell/shell_env.h"
#include "shell/shell_quote.h"

namespace cudnnup {
namespace {

namespace id = finding_id;

// One cuDNN file a target would map, with the rule that picked it and the copy it belongs to.
struct MappedFile {
  std::string path;         // canonical
  std::string dir;          // its directory
  SearchRule rule = SearchRule::kNone;
  std::string detail;       // the rule's detail ("LD_LIBRARY_PATH (/x)", "/etc/ld.so.cache entry ...")
  const CudnnCopy* copy = nullptr;
};

const CudnnCopy* copy_holding(const Report& report, const std::string& file) {
  std::string dir = paths::parent(file);
  auto name = parse_cudnn_library_name(paths::basename(file));
  const CudnnCopy* any = nullptr;
  for (const auto& c : report.copies) {
    if (c.lib_dir != dir) continue;
    if (name && name->major > 0 && c.major() == name->major) return &c;
    if (!any) any = &c;
  }
  return any;
}

MappedFile mapped(const Resolution& r, const Report& report) {
  MappedFile m;
  m.path = r.canonical.empty() ? r.path : r.canonical;
  m.dir = paths::parent(m.path);
  m.rule = r.rule;
  m.detail = r.rule_detail;
  m.copy = copy_holding(report, m.path);
  return m;
}

// The shim and every sub-library the model maps, in load order.
std::vector<MappedFile> mapped_files(const WhichReport& w, const Report& report) {
  std::vector<MappedFile> out;
  if (!w.resolution.found) return out;
  out.push_back(mapped(w.resolution, report));
  if (!w.cudnn) return out;
  for (const auto& sub : w.cudnn->sub_libraries) {
    if (sub.resolution.found) out.push_back(mapped(sub.resolution, report));
  }
  return out;
}

std::string label_of(const MappedFile& m) {
  return m.copy ? copy_label(*m.copy) : "cuDNN files in " + m.dir + " (not a copy doctor lists)";
}

// "LD_LIBRARY_PATH (/x/lib)", "/etc/ld.so.cache entry libcudnn.so.9 (libc6,x86-64)"
std::string rule_of(const MappedFile& m) { return m.detail.empty() ? search_rule_name(m.rule) : m.detail; }

std::string one_line(const MappedFile& m) {
  return std::string(paths::basename(m.path)) + " from " + m.dir + " (" + rule_of(m) + ")";
}

// --- what in the environment is responsible, and the fix that takes it out ------------------

std::string canonical_or(const FileSystem& fs, const std::string& path) {
  auto c = fs.canonical(path);
  return c ? *c : paths::normalize(path);
}

// The directory an LD_LIBRARY_PATH entry stands for: empty = the current directory, relative
// entries against it (as glibc does).
std::string entry_dir(const FileSystem& fs, const Environment& env, const std::string& entry) {
  std::string cwd = env.cwd.empty() ? "/" : env.cwd;
  if (entry.empty()) return canonical_or(fs, cwd);
  return canonical_or(fs, paths::is_absolute(entry) ? entry : paths::join(cwd, entry));
}

std::vector<std::string> preload_words(const Environment& env) {
  std::vector<std::string> out;
  std::string word;
  for (char c : env.get("LD_PRELOAD").value_or("")) {
    if (c == ' ' || c == ':') {
      if (!word.empty()) out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

bool preload_word_names(const FileSystem& fs, const Environment& env, const std::string& word, const MappedFile& m) {
  if (word.find('/') == std::string::npos) return word == paths::basename(m.path);
  return entry_dir(fs, env, word) == m.path;
}

// Where in the user's environment a file comes from: the variable, and the entries to drop.
struct EnvCause {
  std::string variable;              // "LD_LIBRARY_PATH", "LD_PRELOAD"; empty: not the environment
  std::set<size_t> entries;          // indexes into the variable's entries
};

EnvCause env_cause(const FileSystem& fs, const Environment& env, const MappedFile& m) {
  EnvCause cause;
  if (m.rule == SearchRule::kLdLibraryPath) {
    auto entries = env.get_list("LD_LIBRARY_PATH");
    for (size_t i = 0; i < entries.size(); ++i) {
      std::string dir = entry_dir(fs, env, entries[i]);
      if (m.dir == dir || m.dir.rfind(dir + "/glibc-hwcaps/", 0) == 0) cause.entries.insert(i);
    }
    if (!cause.entries.empty()) cause.variable = "LD_LIBRARY_PATH";
    return cause;
  }
  if (m.rule == SearchRule::kPreload || m.rule == SearchRule::kAlreadyLoaded) {
    auto words = preload_words(env);
    for (size_t i = 0; i < words.size(); ++i) {
      if (preload_word_names(fs, env, words[i], m)) cause.entries.insert(i);
    }
    if (!cause.entries.empty()) cause.variable = "LD_PRELOAD";
  }
  return cause;
}

// `export VAR='...'` without the given entries (or `unset VAR`). Every other entry stays exactly,
// an empty one (the current directory, to ld.so) included; when only empty entries would stay,
// the variable is unset and the note says that the empty entry goes too.
FixStep env_fix(const Environment& env, const std::string& variable, const std::set<size_t>& drop) {
  const bool preload = variable == "LD_PRELOAD";
  std::vector<std::string> entries = preload ? preload_words(env) : env.get_list(variable);
  std::vector<std::string> kept;
  std::string dropped;
  bool only_empty_kept = true;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (drop.count(i)) {
      dropped += (dropped.empty() ? "" : ", ") + (entries[i].empty() ? std::string("the empty entry (the current directory)") : entries[i]);
    } else {
      kept.push_back(entries[i]);
      only_empty_kept = only_empty_kept && entries[i].empty();
    }
  }
  if (only_empty_kept) {
    bool empty_goes_too = !kept.empty();
    return fix::unset_env(variable, "drops " + dropped + (empty_goes_too ? " and the empty entry (the current directory) left beside it" : ""));
  }
  std::string value;
  for (size_t i = 0; i < kept.size(); ++i) value += (i ? (preload ? " " : ":") : "") + kept[i];
  return fix::set_env(variable, value, "drops " + dropped);
}

// `cudnnup which ... -v`: every candidate of the target and why it won or lost.
FixStep which_verbose(const LoadTarget& t) {
  std::vector<std::string> args = t.which_args;
  args.push_back("-v");
  return fix::cudnnup(std::move(args), "every candidate and why it won or lost");
}

// Every fix line for files that came through the environment, one per variable.
std::vector<FixStep> env_fixes(const FileSystem& fs, const Environment& env, const std::vector<const MappedFile*>& files,
                                   std::string* variables) {
  std::vector<std::pair<std::string, std::set<size_t>>> by_var;
  for (const MappedFile* m : files) {
    EnvCause c = env_cause(fs, env, *m);
    if (c.variable.empty()) continue;
    auto it = std::find_if(by_var.begin(), by_var.end(), [&](const auto& p) { return p.first == c.variable; });
    if (it == by_var.end()) {
      by_var.emplace_back(c.variable, c.entries);
    } else {
      it->second.insert(c.entries.begin(), c.entries.end());
    }
  }
  std::vector<FixStep> out;
  for (const auto& [var, entries] : by_var) {
    out.push_back(env_fix(env, var, entries));
    if (variables) *variables += (variables->empty() ? "" : " and ") + var;
  }
  return out;
}

// --- the three findings ----------------------------------------------------------------------

bool same_build(const CudnnCopy* a, const CudnnCopy* b) {
  if (!a || !b) return false;
  Version va = effective_version(*a), vb = effective_version(*b);
  if (!va.known() || !vb.known() || va.truncated(3) != vb.truncated(3)) return false;
  return a->cuda_major == 0 || b->cuda_major == 0 || a->cuda_major == b->cuda_major;
}

std::optional<Finding> mixed_copies(const LoadTarget& t, const std::vector<MappedFile>& files, const FileSystem& fs,
                                    const Environment& env) {
  if (files.empty()) return std::nullopt;
  const MappedFile& shim = files.front();
  std::vector<const MappedFile*> foreign;
  bool all_same_build = true;
  for (const auto& m : files) {
    if (m.dir == shim.dir) continue;
    foreign.push_back(&m);
    all_same_build = all_same_build && same_build(m.copy, shim.copy);
  }
  if (foreign.empty()) return std::nullopt;
  std::string variables;
  std::vector<FixStep> fixes = env_fixes(fs, env, foreign, &variables);
  auto f = make_finding(id::kLoaderMixedCopies, all_same_build ? Severity::kWarning : Severity::kError,
                        variables.empty() ? t.label : variables,
                        t.label + " would load cuDNN from " + std::to_string(foreign.size() + 1) + " places: " +
                            label_of(shim) + " and " + std::to_string(foreign.size()) + " sub-librar" +
                            (foreign.size() == 1 ? "y" : "ies") + " from elsewhere" +
                            (variables.empty() ? "" : " (because of " + variables + ")"));
  f.detail = all_same_build
                 ? "Every file is the same cuDNN release built for the same CUDA major, so cuDNN's own version check "
                   "passes; the program still depends on two installations staying in step."
                 : "cuDNN checks that its sub-libraries are its own version (CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH), "
                   "and a sub-library of another build can fail or crash in use.";
  f.evidence.push_back("shim: " + one_line(shim));
  for (const MappedFile* m : foreign) f.evidence.push_back("from another copy: " + one_line(*m) + " = " + label_of(*m));
  f.fix = fixes;
  f.fix.push_back(which_verbose(t));
  return f;
}

std::optional<Finding> redirected(const LoadTarget& t, const std::vector<MappedFile>& with,
                                  const std::vector<MappedFile>& without, const FileSystem& fs, const Environment& env) {
  if (with.empty() || without.empty() || with.front().path == without.front().path) return std::nullopt;
  std::string variables;
  std::vector<FixStep> fixes = env_fixes(fs, env, {&with.front()}, &variables);
  if (variables.empty()) return std::nullopt;  // the shim's own pick is not the environment's doing
  auto f = make_finding(id::kEnvRedirectsCudnn, Severity::kWarning, variables,
                        variables + " makes " + t.label + " load " + label_of(with.front()) + " instead of " +
                            label_of(without.front()));
  f.detail = "This is the environment's doing, not a problem of either copy. If " + variables +
             " is meant to select that copy, nothing needs to change.";
  f.evidence = {"with your environment: " + one_line(with.front()),
                "without LD_LIBRARY_PATH and LD_PRELOAD: " + one_line(without.front())};
  f.fix = fixes;
  f.fix.push_back(which_verbose(t));
  return f;
}

std::optional<Finding> shadowed(const LoadTarget& t, const std::vector<MappedFile>& with,
                                const std::vector<MappedFile>& without, const Report& report, const FileSystem& fs,
                                const Environment& env) {
  if (with.empty()) return std::nullopt;
  const MappedFile& winner = with.front();
  // Every copy of this major the search reaches, in search order (the resolver's candidates).
  std::vector<MappedFile> reached;
  for (const auto& c : t.with_env->resolution.candidates) {
    if (!c.exists) continue;
    Resolution r;
    r.path = c.path;
    r.canonical = canonical_or(fs, c.path);
    r.rule = c.rule;
    r.rule_detail = c.source;
    MappedFile m = mapped(r, report);
    if (!m.copy) continue;
    bool seen = std::any_of(reached.begin(), reached.end(), [&](const MappedFile& x) { return x.copy == m.copy; });
    if (!seen) reached.push_back(m);
  }
  if (reached.size() < 2) return std::nullopt;
  // Two copies where the environment picks one over what the system would pick: that is
  // env.redirects_cudnn's story, told once.
  if (reached.size() == 2 && !without.empty() && without.front().path != winner.path &&
      !env_cause(fs, env, winner).variable.empty()) {
    return std::nullopt;
  }
  const MappedFile* win = &reached.front();
  for (const auto& m : reached) {
    if (m.path == winner.path) win = &m;
  }
  auto f = make_finding(id::kCudnnShadowed, Severity::kWarning, win->copy->lib_dir,
                        std::to_string(reached.size()) + " copies of cuDNN " + std::to_string(win->copy->major()) +
                            " are on the library search path; programs get " + copy_label(*win->copy));
  f.detail = "The others are shadowed. A framework built for another version, or a sub-library taken from the "
             "wrong copy, gives version errors.";
  for (const auto& m : reached) {
    f.evidence.push_back((&m == win ? "wins: " : "shadowed: ") + copy_label(*m.copy) + " (" + rule_of(m) + ")");
  }
  f.fix = env_fixes(fs, env, {win}, nullptr);
  f.fix.push_back(which_verbose(t));
  return f;
}

}  // namespace

bool sets_loader_variables(const Environment& env) {
  return !env.windows() && (env.get("LD_LIBRARY_PATH").has_value() || env.get("LD_PRELOAD").has_value());
}

Environment without_loader_variables(const Environment& env) {
  Environment out = env;
  out.vars.erase("LD_LIBRARY_PATH");
  out.vars.erase("LD_PRELOAD");
  return out;
}

std::vector<Finding> check_loads(const std::vector<LoadTarget>& targets, const Report& report, const FileSystem& fs,
                                 const Environment& env) {
  std::vector<Finding> out;
  for (const auto& t : targets) {
    if (!t.with_env) continue;
    std::vector<MappedFile> with = mapped_files(*t.with_env, report);
    std::vector<MappedFile> without = t.without_env ? mapped_files(*t.without_env, report) : std::vector<MappedFile>{};
    if (t.judge_mix) {
      if (auto f = mixed_copies(t, with, fs, env)) out.push_back(std::move(*f));
    }
    if (auto f = redirected(t, with, without, fs, env)) out.push_back(std::move(*f));
    if (t.judge_shadowing) {
      if (auto f = shadowed(t, with, without, report, fs, env)) out.push_back(std::move(*f));
    }
  }
  return out;
}

std::vector<Finding> check_frameworks(const std::vector<FrameworkReport>& frameworks, const Report& report,
                                      const FileSystem& fs, const Environment& env) {
  std::vector<Finding> out;
  for (const auto& fw : frameworks) {
    if (!fw.passes.has_value() || *fw.passes) continue;
    Finding f = make_finding(id::kFrameworkCudnnRejected, Severity::kError, fw.site_packages,
                             fw.framework + " " + fw.version + " in " + fw.env_prefix + ": " + fw.verdict);
    f.detail = fw.rule;
    if (fw.built_cudnn) f.evidence.push_back("built for cuDNN " + fw.built_cudnn->str() + " (" + fw.built_cudnn_source + ")");
    if (fw.load && fw.load->resolution.found) {
      f.evidence.push_back("would load " + fw.load->resolution.path + " (" + fw.load->resolution.rule_detail + ")");
    }
    if (fw.loaded_cudnn) f.evidence.push_back("that copy is cuDNN " + fw.loaded_cudnn->str());
    for (const auto& n : fw.notes) f.evidence.push_back(n);
    std::string interp = fw.interpreter.empty() ? (env.windows() ? "python" : "python3")
                                                : (env.windows() ? paths::to_native(fw.interpreter, true) : fw.interpreter);
    // When the environment put a file there, take it out of the environment; the copies are fine.
    std::vector<MappedFile> files = fw.load ? mapped_files(*fw.load, report) : std::vector<MappedFile>{};
    std::vector<const MappedFile*> pointers;
    for (const auto& m : files) pointers.push_back(&m);
    std::string variables;
    f.fix = env_fixes(fs, env, pointers, &variables);
    f.fix.push_back(fix::cudnnup({"which", "--for", fw.framework, "--python", interp}, "shows every candidate and why it lost"));
    if (variables.empty() && env.windows()) {
      // TensorFlow and ONNX Runtime find cuDNN through PATH on Windows (torch brings its own): a
      // reinstall from PyPI would not bring it, and for TensorFlow would replace the GPU build.
      f.fix.push_back(fix::step("Put the bin folder of a cuDNN " +
                                (fw.built_cudnn ? std::to_string(fw.built_cudnn->major()) : std::string()) +
                                " copy on PATH and open a new terminal (doctor's windows.cudnn_not_on_path finding, "
                                "where it appears, names the folder and the command)"));
    } else if (variables.empty()) {
      f.fix.push_back(fix::step("Reinstall the framework's pinned cuDNN:"));
      f.fix.push_back(fix::run({interp, "-m", "pip", "install", "--force-reinstall", fw.framework}));
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace cudnnup
