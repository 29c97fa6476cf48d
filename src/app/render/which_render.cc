#include "app/render/which_render.h"

#include <sstream>

#include "loader/cudnn_load_model.h"

namespace cudnnup {
namespace {

using json = nlohmann::ordered_json;

std::string paint(const std::string& text, const char* code, bool color) {
  return color ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
}

std::string version_or_unknown(const std::optional<Version>& v) { return v ? v->str() : "unknown"; }

void candidates_text(std::ostringstream& out, const Resolution& r, bool verbose, bool color, const std::string& indent) {
  size_t hidden = 0;
  for (const Candidate& c : r.candidates) {
    bool winner = c.exists && c.path == r.path && c.outcome.rfind("loads", 0) == 0;
    if (!verbose && !c.exists && (c.outcome == "missing" || c.outcome == "not a regular file")) {
      ++hidden;
      continue;
    }
    std::string mark = winner ? paint("*", "32", color) : (c.exists ? paint("-", "33", color) : "x");
    out << indent << mark << " " << c.path << "\n" << indent << "    " << search_rule_name(c.rule) << ": " << c.outcome;
    if (!winner) out << "  [" << c.source << "]";
    out << "\n";
  }
  if (hidden > 0) out << indent << "(" << hidden << " missing candidate" << (hidden == 1 ? "" : "s") << " not shown; --verbose lists them)\n";
}

}  // namespace

json resolution_to_json(const Resolution& r) {
  json j;
  j["name"] = r.name;
  j["requester"] = r.requester;
  j["kind"] = r.kind;
  j["found"] = r.found;
  j["path"] = r.found ? json(r.path) : json(nullptr);
  j["canonical"] = r.found ? json(r.canonical) : json(nullptr);
  j["rule"] = search_rule_name(r.rule);
  j["rule_detail"] = r.rule_detail;
  if (!r.error.empty()) j["error"] = r.error;
  json cands = json::array();
  for (const Candidate& c : r.candidates) {
    cands.push_back({{"path", c.path}, {"rule", search_rule_name(c.rule)}, {"source", c.source},
                     {"outcome", c.outcome}, {"exists", c.exists}});
  }
  j["candidates"] = cands;
  j["notes"] = r.notes;
  return j;
}

json which_report_to_json(const WhichReport& w) {
  json j;
  j["target"] = w.target;
  j["target_kind"] = w.target_kind;
  j["library"] = w.library;
  j["how_requested"] = w.how_requested;
  j["resolution"] = resolution_to_json(w.resolution);
  if (w.cudnn) {
    json c;
    c["version"] = w.cudnn->shim_version ? json(w.cudnn->shim_version->str()) : json(nullptr);
    c["version_source"] = w.cudnn->version_source;
    c["mixed_copies"] = w.cudnn->mixed;
    json subs = json::array();
    for (const CudnnSubLibrary& s : w.cudnn->sub_libraries) {
      subs.push_back({{"component", s.component}, {"requested_by", s.requested_by}, {"names_tried", s.names_tried},
                      {"from_other_copy", s.from_other_copy}, {"resolution", resolution_to_json(s.resolution)}});
    }
    c["sub_libraries"] = subs;
    j["cudnn"] = c;
  } else {
    j["cudnn"] = nullptr;
  }
  j["loaded_cudnn_files"] = w.loaded_cudnn_files;
  j["notes"] = w.notes;
  j["problems"] = w.problems;
  return j;
}

json framework_report_to_json(const FrameworkReport& f) {
  json j;
  j["framework"] = f.framework;
  j["version"] = f.version;
  j["env_prefix"] = f.env_prefix;
  j["interpreter"] = f.interpreter;
  j["site_packages"] = f.site_packages;
  j["cuda_version"] = f.cuda_version;
  j["built_cudnn"] = f.built_cudnn ? json(f.built_cudnn->str()) : json(nullptr);
  j["built_cudnn_source"] = f.built_cudnn_source;
  j["loading_library"] = f.loading_library;
  j["loaded_cudnn"] = f.loaded_cudnn ? json(f.loaded_cudnn->str()) : json(nullptr);
  j["load"] = f.load ? which_report_to_json(*f.load) : json(nullptr);
  j["rule"] = f.rule;
  j["passes"] = f.passes ? json(*f.passes) : json(nullptr);
  j["verdict"] = f.verdict;
  j["notes"] = f.notes;
  return j;
}

json process_report_to_json(const ProcessCudnnReport& p) {
  json j;
  j["pid"] = p.pid;
  j["mixed"] = p.mixed;
  json copies = json::array();
  for (const auto& c : p.copies) copies.push_back({{"directory", c.directory}, {"files", c.files}});
  j["copies"] = copies;
  j["deleted"] = p.deleted;
  return j;
}

std::string which_report_to_text(const WhichReport& w, bool verbose, bool color) {
  std::ostringstream out;
  out << paint(w.library, "1", color) << " for " << w.target << "\n";
  const Resolution& r = w.resolution;
  if (r.found) {
    out << "  loads  " << paint(r.path, "32", color);
    if (r.canonical != r.path) out << "  (-> " << r.canonical << ")";
    if (w.cudnn) out << "  cuDNN " << version_or_unknown(w.cudnn->shim_version);
    out << "\n  rule   " << search_rule_name(r.rule) << ": " << r.rule_detail << "\n";
  } else {
    out << "  " << paint("does not load", "31", color) << ": " << r.error << "\n";
  }
  out << "  asked  " << w.how_requested << "\n";
  out << "  candidates in ld.so's order:\n";
  candidates_text(out, r, verbose, color, "    ");
  if (w.cudnn && !w.cudnn->sub_libraries.empty()) {
    out << "  cuDNN sub-libraries (dlopen()ed by cuDNN itself):\n";
    for (const CudnnSubLibrary& s : w.cudnn->sub_libraries) {
      out << "    " << s.component << ": ";
      if (s.resolution.found) {
        out << s.resolution.path << "  [" << search_rule_name(s.resolution.rule) << "]";
        if (s.from_other_copy) out << "  " << paint("FROM ANOTHER COPY", "31", color);
      } else {
        out << "not found (" << s.names_tried.back() << ")";
      }
      out << "\n";
      if (verbose || s.from_other_copy) candidates_text(out, s.resolution, verbose, color, "        ");
    }
    if (w.cudnn->mixed) {
      out << "  " << paint("problem", "31", color)
          << ": cuDNN would mix copies; it fails with CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH. Remove the other "
             "copy's directory from LD_LIBRARY_PATH, or make that copy the same version.\n";
    }
  }
  for (const auto& n : w.notes) out << "  note: " << n << "\n";
  for (const auto& p : w.problems) out << "  problem: " << p << "\n";
  return out.str();
}

std::string framework_report_to_text(const FrameworkReport& f, bool verbose, bool color) {
  std::ostringstream out;
  out << paint(f.framework + " " + f.version, "1", color) << " in " << f.env_prefix << "\n";
  if (!f.cuda_version.empty()) out << "  built with CUDA " << f.cuda_version << "\n";
  out << "  built for cuDNN " << version_or_unknown(f.built_cudnn);
  if (!f.built_cudnn_source.empty()) out << "  (" << f.built_cudnn_source << ")";
  out << "\n";
  if (!f.loading_library.empty()) out << "  cuDNN is loaded by " << f.loading_library << "\n";
  const char* mark = f.passes ? (*f.passes ? "32" : "31") : "33";
  out << "  verdict: " << paint(f.verdict, mark, color) << "\n";
  out << "  rule: " << f.rule << "\n";
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
