#include "app/render/which_render.h"

#include <sstream>

#include "base/paths.h"
#include "base/terminal_text.h"
#include "loader/cudnn_load_model.h"

namespace cudnnup {
namespace {

using ordered_json = nlohmann::ordered_json;

std::string version_or_unknown(const std::optional<Version>& v) { return v ? v->str() : "unknown"; }
ordered_json optional_version_or_null(const std::optional<Version>& v) { return v ? ordered_json(v->str()) : ordered_json(nullptr); }

// Paths as the OS writes them: Windows answers keep '/' inside and show '\'.
struct PathStyle {
  bool windows = false;
  std::string operator()(const std::string& p) const { return windows ? paths::to_native(p, true) : p; }
};

std::string error_name(int code) {
  switch (code) {
    case 126: return "126 ERROR_MOD_NOT_FOUND";
    case 127: return "127 ERROR_PROC_NOT_FOUND";
    case 193: return "193 ERROR_BAD_EXE_FORMAT";
    case 5: return "5 ERROR_ACCESS_DENIED";
    default: return std::to_string(code);
  }
}

ordered_json resolution_json(const Resolution& r, const PathStyle& p) {
  ordered_json j;
  j["name"] = r.name;
  j["requester"] = p(r.requester);
  j["kind"] = r.kind;
  j["found"] = r.found;
  j["path"] = r.found ? ordered_json(p(r.path)) : ordered_json(nullptr);
  j["canonical"] = r.found ? ordered_json(p(r.canonical)) : ordered_json(nullptr);
  j["rule"] = search_rule_name(r.rule);
  j["rule_detail"] = r.rule_detail;
  if (!r.error.empty()) j["error"] = r.error;
  j["failed_at"] = r.failed_at.empty() ? ordered_json(nullptr) : ordered_json(p(r.failed_at));
  j["win32_error"] = r.win32_error;
  ordered_json cands = ordered_json::array();
  for (const Candidate& c : r.candidates) {
    ordered_json cj = {{"path", p(c.path)}, {"rule", search_rule_name(c.rule)}, {"source", c.source}, {"outcome", c.outcome},
               {"exists", c.exists}, {"problem", load_problem_name(c.problem)}, {"problem_detail", c.problem_detail}};
    cj["entry_index"] = c.entry_index;
    cj["entry"] = c.entry_index >= 0 ? ordered_json(c.entry) : ordered_json(nullptr);
    cj["search_position"] = c.search_position;
    cj["file_version"] = c.file_version.empty() ? ordered_json(nullptr) : ordered_json(c.file_version);
    cands.push_back(cj);
  }
  j["candidates"] = cands;
  ordered_json dirs = ordered_json::array();
  for (const SearchDir& d : r.search_dirs) dirs.push_back({{"dir", p(d.dir)}, {"rule", search_rule_name(d.rule)}, {"source", d.source}});
  j["search_dirs"] = dirs;
  j["hazards"] = r.hazards;
  j["notes"] = r.notes;
  return j;
}

ordered_json cudnn_json(const CudnnLoad& c, const PathStyle& p) {
  ordered_json j;
  j["version"] = optional_version_or_null(c.shim_version);
  j["version_source"] = c.version_source;
  j["mixed_copies"] = c.mixed;
  j["binding_mixed"] = c.binding_mixed;
  j["version_check"] = cudnn_check_name(c.check);
  j["version_check_detail"] = c.check_detail;
  j["reported_version"] = optional_version_or_null(c.reported_version);
  ordered_json subs = ordered_json::array();
  for (const CudnnSubLibrary& s : c.sub_libraries) {
    ordered_json bindings = ordered_json::array();
    for (const CudnnBinding& b : s.bindings) {
      bindings.push_back({{"dependency", b.dependency}, {"file", b.file.empty() ? ordered_json(nullptr) : ordered_json(p(b.file))},
                          {"version", optional_version_or_null(b.version)}, {"checked", b.checked},
                          {"from_other_copy", b.from_other_copy}, {"how", b.how}});
    }
    subs.push_back({{"component", s.component}, {"requested_by", p(s.requested_by)}, {"names_tried", s.names_tried},
                    {"from_other_copy", s.from_other_copy}, {"version", optional_version_or_null(s.version)},
                    {"version_source", s.version_source}, {"bindings", bindings},
                    {"resolution", resolution_json(s.resolution, p)}});
  }
  j["sub_libraries"] = subs;
  return j;
}

void candidates_text(std::ostringstream& out, const Resolution& r, const PathStyle& p, bool verbose, bool color,
                     const std::string& indent) {
  size_t hidden = 0;
  for (const Candidate& c : r.candidates) {
    bool winner = r.found && c.exists && c.path == r.path && c.outcome.rfind("loads", 0) == 0;
    bool failed = !r.failed_at.empty() && c.path == r.failed_at;
    if (!verbose && !c.exists && !failed && c.outcome == "missing") {
      ++hidden;
      continue;
    }
    std::string mark = winner ? paint("*", "32", color) : failed ? paint("!", "31", color) : (c.exists ? paint("-", "33", color) : "x");
    out << indent << mark << " " << p(c.path) << "\n" << indent << "    " << search_rule_name(c.rule) << ": " << c.outcome;
    if (!winner && !c.source.empty()) out << "  [" << c.source << "]";
    if (!c.file_version.empty()) out << "  (file version " << c.file_version << ")";
    out << "\n";
  }
  if (hidden > 0) out << indent << "(" << hidden << " missing candidate" << (hidden == 1 ? "" : "s") << " not shown; --verbose lists them)\n";
}

void sub_libraries_text(std::ostringstream& out, const CudnnLoad& c, const PathStyle& p, bool verbose, bool color) {
  out << "  cuDNN sub-libraries (loaded by cuDNN itself):\n";
  for (const CudnnSubLibrary& s : c.sub_libraries) {
    out << "    " << s.component << ": ";
    if (s.resolution.found) {
      out << p(s.resolution.path) << "  [" << search_rule_name(s.resolution.rule) << "]";
      if (s.version) out << "  " << s.version->str();
      if (s.from_other_copy) out << "  " << paint("FROM ANOTHER COPY", "31", color);
    } else if (!s.resolution.failed_at.empty()) {
      out << paint("fails: " + s.resolution.error, "31", color);
    } else {
      out << "not found (" << (s.names_tried.empty() ? s.resolution.name : s.names_tried.back()) << ")";
    }
    out << "\n";
    for (const CudnnBinding& b : s.bindings) {
      if (!b.from_other_copy && !verbose) continue;
      out << "        uses " << b.dependency << " " << (b.file.empty() ? "(none loaded)" : p(b.file)) << " "
          << version_or_unknown(b.version) << " through " << b.how;
      if (b.from_other_copy) out << "  " << paint("ANOTHER COPY", "31", color);
      out << "\n";
    }
    if (verbose || s.from_other_copy) candidates_text(out, s.resolution, p, verbose, color, "        ");
  }
  const char* mark = c.check == CudnnCheck::kFails ? "31" : c.check == CudnnCheck::kPasses ? "32" : "33";
  out << "  cuDNN's sub-library version check: " << paint(cudnn_check_name(c.check), mark, color) << "\n";
  for (const auto& d : c.check_detail) out << "    " << d << "\n";
  if (c.mixed) {
    out << "  " << paint(c.check == CudnnCheck::kFails ? "problem" : "mixed", c.check == CudnnCheck::kFails ? "31" : "33", color)
        << ": this process takes cuDNN files from more than one copy"
        << (c.check == CudnnCheck::kPasses ? " (all of the same version, so cuDNN's check passes)." : ".")
        << " Remove the other copy's directory from the library path, or make that copy the same version.\n";
  }
}

}  // namespace

ordered_json resolution_to_json(const Resolution& r) { return resolution_json(r, PathStyle{}); }

ordered_json which_report_to_json(const WhichReport& w) {
  PathStyle p{w.windows};
  ordered_json j;
  j["target"] = w.target;
  j["target_kind"] = w.target_kind;
  j["library"] = w.library;
  j["how_requested"] = w.how_requested;
  j["loader"] = w.loader;
  j["search_mode"] = w.search_mode.empty() ? ordered_json(nullptr) : ordered_json(w.search_mode);
  j["resolution"] = resolution_json(w.resolution, p);
  j["cudnn"] = w.cudnn ? cudnn_json(*w.cudnn, p) : ordered_json(nullptr);
  ordered_json files = ordered_json::array();
  for (const auto& f : w.loaded_cudnn_files) files.push_back(p(f));
  j["loaded_cudnn_files"] = files;
  j["hazards"] = w.hazards;
  j["notes"] = w.notes;
  j["problems"] = w.problems;
  return j;
}

ordered_json framework_report_to_json(const FrameworkReport& f) {
  ordered_json j;
  j["framework"] = f.framework;
  j["version"] = f.version;
  j["variant"] = f.variant;
  j["applies_when"] = f.applies_when;
  j["env_prefix"] = f.env_prefix;
  j["interpreter"] = f.interpreter;
  j["site_packages"] = f.site_packages;
  j["cuda_version"] = f.cuda_version;
  j["built_cudnn"] = optional_version_or_null(f.built_cudnn);
  j["built_cudnn_source"] = f.built_cudnn_source;
  j["loading_library"] = f.loading_library;
  j["loaded_cudnn"] = optional_version_or_null(f.loaded_cudnn);
  j["load"] = f.load ? which_report_to_json(*f.load) : ordered_json(nullptr);
  j["rule"] = f.rule;
  j["rule_source"] = f.rule_source;
  j["passes"] = f.passes ? ordered_json(*f.passes) : ordered_json(nullptr);
  j["verdict"] = f.verdict;
  j["notes"] = f.notes;
  return j;
}

ordered_json process_report_to_json(const ProcessCudnnReport& p) {
  ordered_json j;
  j["pid"] = p.pid;
  j["mixed"] = p.mixed;
  ordered_json copies = ordered_json::array();
  for (const auto& c : p.copies) copies.push_back({{"directory", c.directory}, {"files", c.files}});
  j["copies"] = copies;
  j["deleted"] = p.deleted;
  return j;
}

std::string which_report_to_text(const WhichReport& w, bool verbose, bool color) {
  PathStyle p{w.windows};
  std::ostringstream out;
  out << paint(w.library, "1", color) << " for " << w.target << "\n";
  const Resolution& r = w.resolution;
  if (r.found) {
    out << "  loads  " << paint(p(r.path), "32", color);
    if (r.canonical != r.path) out << "  (-> " << p(r.canonical) << ")";
    if (w.cudnn) out << "  cuDNN " << version_or_unknown(w.cudnn->shim_version);
    out << "\n  rule   " << search_rule_name(r.rule) << ": " << r.rule_detail << "\n";
  } else {
    out << "  " << paint("does not load", "31", color);
    if (r.win32_error != 0) out << " (error " << error_name(r.win32_error) << ")";
    out << ": " << r.error << "\n";
  }
  out << "  asked  " << w.how_requested << "\n";
  if (!w.search_mode.empty()) out << "  search " << w.search_mode << "\n";
  if (verbose && !w.loader.empty()) out << "  loader " << w.loader << "\n";
  if (verbose && !r.search_dirs.empty()) {
    out << "  directories searched, in order:\n";
    for (size_t i = 0; i < r.search_dirs.size(); ++i) {
      out << "    " << (i + 1) << ". " << p(r.search_dirs[i].dir) << "  [" << r.search_dirs[i].source << "]\n";
    }
  }
  out << "  candidates in the loader's order:\n";
  candidates_text(out, r, p, verbose, color, "    ");
  if (w.cudnn && !w.cudnn->sub_libraries.empty()) sub_libraries_text(out, *w.cudnn, p, verbose, color);
  for (const auto& h : w.hazards) out << "  " << paint("hazard", "31", color) << ": " << h << "\n";
  for (const auto& n : w.notes) out << "  note: " << n << "\n";
  for (const auto& pr : w.problems) out << "  problem: " << pr << "\n";
  return out.str();
}

std::string framework_report_to_text(const FrameworkReport& f, bool verbose, bool color) {
  std::ostringstream out;
  out << paint(f.framework + " " + f.version, "1", color);
  if (!f.variant.empty()) out << " (" << f.variant << ")";
  out << " in " << f.env_prefix << "\n";
  if (!f.applies_when.empty()) out << "  applies to " << f.applies_when << "\n";
  if (!f.cuda_version.empty()) out << "  built with CUDA " << f.cuda_version << "\n";
  out << "  built for cuDNN " << version_or_unknown(f.built_cudnn);
  if (!f.built_cudnn_source.empty()) out << "  (" << f.built_cudnn_source << ")";
  out << "\n";
  if (!f.loading_library.empty()) out << "  cuDNN is loaded by " << f.loading_library << "\n";
  const char* mark = f.passes ? (*f.passes ? "32" : "31") : "33";
  out << "  verdict: " << paint(f.verdict, mark, color) << "\n";
  out << "  rule: " << f.rule;
  if (!f.rule_source.empty()) out << "  [" << f.rule_source << "]";
  out << "\n";
  for (const auto& n : f.notes) out << "  note: " << n << "\n";
  if (f.load) {
    std::string inner = which_report_to_text(*f.load, verbose, color);
    std::istringstream lines(inner);
    std::string line;
    while (std::getline(lines, line)) out << "  " << line << "\n";
  }
  return out.str();
}

std::string process_report_to_text(const ProcessCudnnReport& p, bool color) {
  std::ostringstream out;
  out << "process " << p.pid << ": ";
  if (p.copies.empty()) {
    out << "no cuDNN library is mapped\n";
    return out.str();
  }
  out << p.copies.size() << " cuDNN cop" << (p.copies.size() == 1 ? "y" : "ies") << "\n";
  for (const auto& c : p.copies) {
    out << "  " << paint(c.directory, "1", color) << "\n";
    for (const auto& f : c.files) out << "    " << f << "\n";
  }
  if (p.mixed) {
    out << "  " << paint("problem", "31", color)
        << ": this process mixes cuDNN files from different directories; if their versions differ cuDNN fails "
           "with CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH\n";
  }
  for (const auto& d : p.deleted) out << "  note: " << d << " was deleted or replaced after it was mapped\n";
  return out.str();
}

}  // namespace cudnnup
