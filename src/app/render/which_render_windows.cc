#include "app/render/which_render_windows.h"

#include <sstream>

#include "base/paths.h"

namespace cudnnup {
namespace {

using json = nlohmann::ordered_json;

std::string paint(const std::string& text, const char* code, bool color) {
  return color ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
}

std::string native(const std::string& p) { return paths::to_native(p, true); }

std::string error_name(int code) {
  switch (code) {
    case 126: return "126 ERROR_MOD_NOT_FOUND";
    case 127: return "127 ERROR_PROC_NOT_FOUND";
    case 193: return "193 ERROR_BAD_EXE_FORMAT";
    case 5: return "5 ERROR_ACCESS_DENIED";
    default: return std::to_string(code);
  }
}

json candidate_to_json(const DllCandidate& c, const std::string& outcome) {
  json j;
  j["path"] = native(c.path);
  j["rule"] = c.rule;
  j["search_position"] = c.search_position;
  j["outcome"] = outcome;
  j["exists"] = true;
  j["problem"] = dll_load_problem_name(c.problem);
  j["problem_detail"] = c.problem_detail;
  j["win32_error"] = win32_error_for(c.problem);
  j["file_version"] = c.file_version ? json(pe_version_string(*c.file_version)) : json(nullptr);
  return j;
}

std::string winner_outcome(const DllResolution& r) {
  if (r.loads) return "loads";
  return "picked, but fails: " + r.winner->problem_detail + " (error " + error_name(r.win32_error) + ")";
}

void candidates_text(std::ostringstream& out, const DllResolution& r, bool color, const std::string& indent) {
  if (r.winner) {
    out << indent << paint("*", r.loads ? "32" : "31", color) << " " << native(r.winner->path) << "\n"
        << indent << "    " << r.winner->rule << ": " << winner_outcome(r) << "\n";
  }
  for (const auto& l : r.losers) {
    out << indent << paint("-", "33", color) << " " << native(l.path) << "\n" << indent << "    " << l.rule << ": loses: " << l.why_not;
    if (l.problem != DllLoadProblem::kNone) out << " (and it would fail itself: " << l.problem_detail << ")";
    out << "\n";
  }
}

}  // namespace

json dll_resolution_to_json(const DllResolution& r) {
  json j;
  j["name"] = r.name;
  j["found"] = r.winner.has_value();
  j["loads"] = r.loads;
  j["path"] = r.winner ? json(native(r.winner->path)) : json(nullptr);
  j["rule"] = r.winner ? json(r.winner->rule) : json("not-found");
  j["rule_detail"] = r.explanation;
  j["win32_error"] = r.win32_error;
  if (!r.loads) j["error"] = "LoadLibrary fails with error " + error_name(r.win32_error) + ": " + r.explanation;
  json dirs = json::array();
  for (const auto& d : r.search_dirs) dirs.push_back({{"dir", native(d.dir)}, {"rule", d.rule}});
  j["search_dirs"] = dirs;
  json cands = json::array();
  if (r.winner) cands.push_back(candidate_to_json(*r.winner, winner_outcome(r)));
  for (const auto& l : r.losers) cands.push_back(candidate_to_json(l, "loses: " + l.why_not));
  j["candidates"] = cands;
  return j;
}

json windows_which_to_json(const WindowsWhichReport& w) {
  json j;
  j["target"] = w.target;
  j["target_kind"] = w.target_kind;
  j["library"] = w.library;
  j["how_requested"] = w.how_requested;
  j["search_mode"] = w.search_mode;
  j["resolution"] = dll_resolution_to_json(w.resolution);
  if (!w.sub_libraries.empty() || w.mixed) {
    json subs = json::array();
    for (const auto& s : w.sub_libraries) {
      subs.push_back({{"component", s.component},
                      {"from_other_copy", s.from_other_copy},
                      {"resolution", dll_resolution_to_json(s.resolution)}});
    }
    j["cudnn"] = {{"mixed_copies", w.mixed}, {"sub_libraries", subs}};
  } else {
    j["cudnn"] = nullptr;
  }
  j["notes"] = w.notes;
  j["problems"] = w.problems;
  return j;
}

std::string windows_which_to_text(const WindowsWhichReport& w, bool verbose, bool color) {
  std::ostringstream out;
  const DllResolution& r = w.resolution;
  out << paint(w.library, "1", color) << " for " << w.target << "\n";
  if (r.winner && r.loads) {
    out << "  loads  " << paint(native(r.winner->path), "32", color);
    if (r.winner->file_version) out << "  (file version " << pe_version_string(*r.winner->file_version) << ")";
    out << "\n  rule   " << r.winner->rule << "\n";
  } else {
    out << "  " << paint("does not load", "31", color) << " (error " << error_name(r.win32_error) << "): " << r.explanation
        << "\n";
  }
  out << "  asked  " << w.how_requested << "\n  search " << w.search_mode << "\n";
  if (verbose) {
    out << "  directories searched, in order:\n";
    for (size_t i = 0; i < r.search_dirs.size(); ++i) {
      out << "    " << (i + 1) << ". " << native(r.search_dirs[i].dir) << "  [" << r.search_dirs[i].rule << "]\n";
    }
  }
  if (r.winner || !r.losers.empty()) {
    out << "  copies, winner first:\n";
    candidates_text(out, r, color, "    ");
  }
  if (!w.sub_libraries.empty()) {
    out << "  cuDNN sub-libraries (found by module name with the same search):\n";
    for (const auto& s : w.sub_libraries) {
      out << "    " << s.component << ": ";
      if (s.resolution.winner) {
        out << native(s.resolution.winner->path) << "  [" << s.resolution.winner->rule << "]";
        if (s.from_other_copy) out << "  " << paint("FROM ANOTHER COPY", "31", color);
        if (!s.resolution.loads) out << "  " << paint("fails: " + s.resolution.winner->problem_detail, "31", color);
      } else {
        out << paint("not found", "31", color);
      }
      out << "\n";
      if (verbose || s.from_other_copy) candidates_text(out, s.resolution, color, "        ");
    }
  }
  for (const auto& n : w.notes) out << "  note: " << n << "\n";
  for (const auto& p : w.problems) out << "  problem: " << p << "\n";
  return out.str();
}

}  // namespace cudnnup
