// `cudnnup explain`: from a user's error message (or a whole log) to what it means, the causes
// ranked by what this machine shows, and the fix as commands. docs/commands/explain.md.
#include <algorithm>
#include <iostream>
#include <iterator>
#include <sstream>

#include "platform/real_filesystem.h"
#include "app/cli/commands.h"
#include "app/commands/doctor_runner.h"
#include "app/cli/exit_codes.h"
#include "app/render/report_json.h"
#include "app/render/style.h"
#include "explain/explain.h"
#include "shell/fix_render.h"
#include "base/paths.h"
#include "base/json_text.h"

namespace cudnnup {
namespace {

constexpr unsigned long long kMaxInputBytes = 64ull << 20;

struct ExplainOptions {
  std::vector<std::string> text;  // positional words; "-" reads stdin
  std::string file;
  bool no_doctor = false;
};

Result<std::string> read_input(const AppContext& ctx, const ExplainOptions& opt) {
  if (!opt.file.empty() && !opt.text.empty()) {
    return make_error(ErrorCode::kUsage, "give the message as TEXT, or --file LOG, or - for stdin, not several");
  }
  if (!opt.file.empty()) {
    auto text = ctx.fs->read_stream(opt.file, kMaxInputBytes);
    if (!text) return make_error(text.error().code, "cannot read the log given with --file: " + text.error().message, opt.file);
    return *text;
  }
  if (opt.text.size() == 1 && opt.text[0] == "-") {
    auto text = read_standard_input(kMaxInputBytes);
    if (!text) return make_error(text.error().code, "cannot read the log given with -: " + text.error().message);
    return *text;
  }
  if (opt.text.empty()) {
    return make_error(ErrorCode::kUsage,
                      "no message given: cudnnup explain \"ERROR TEXT\", cudnnup explain --file LOG, or ... | cudnnup explain -");
  }
  std::string joined;
  for (const auto& w : opt.text) joined += (joined.empty() ? "" : " ") + w;
  return joined;
}

std::string severity_label(const Style& s, MessageSeverity sev) {
  switch (sev) {
    case MessageSeverity::kHarmless: return s.ok() + " harmless";
    case MessageSeverity::kWarning: return s.warn() + " warning";
    case MessageSeverity::kError: return s.bad() + " error";
  }
  return "";
}

std::string verdict_label(const Style& s, Verdict v) {
  switch (v) {
    case Verdict::kHolds: return s.bad() + " likely here";
    case Verdict::kUnknown: return s.info() + " possible";
    case Verdict::kDoesNotHold: return s.ok() + " ruled out";
  }
  return "";
}

std::string lines_text(const Explanation& e) {
  std::string out = e.lines.size() == 1 ? "line " : "lines ";
  for (size_t i = 0; i < e.lines.size(); ++i) out += (i ? ", " : "") + std::to_string(e.lines[i]);
  if (e.occurrences > int(e.lines.size())) out += ", ...";
  if (e.occurrences > 1) out += " (" + std::to_string(e.occurrences) + " times)";
  return out;
}

std::string machine_summary(const Report& r) {
  std::ostringstream out;
  const DriverInfo& d = r.driver;
  out << "  driver:  ";
  if (d.present) {
    out << (d.version_text.empty() ? d.version.str() : d.version_text);
    if (d.cuda_version.known()) out << " (CUDA " << d.cuda_version.truncated(2).str() << ")";
    out << ", " << d.gpus.size() << " GPU(s)\n";
  } else {
    out << "none found" << (d.problem.empty() ? "" : ": " + d.problem) << "\n";
  }
  out << "  CUDA:    ";
  if (r.toolkits.empty()) out << "no toolkit";
  for (size_t i = 0; i < r.toolkits.size(); ++i) out << (i ? ", " : "") << r.toolkits[i].version.str() << " " << r.toolkits[i].root;
  out << "\n  cuDNN:   ";
  if (r.copies.empty()) out << "none found";
  for (size_t i = 0; i < r.copies.size(); ++i) {
    const auto& c = r.copies[i];
    Version v = c.library_version.known() ? c.library_version : c.header_version;
    out << (i ? "\n           " : "") << (v.known() ? v.str() : std::to_string(c.major()) + ".x") << " in " << c.lib_dir;
  }
  FindingCounts counts = count_findings(r.findings);
  out << "\n  doctor:  " << counts.errors << " error(s), " << counts.warnings << " warning(s)";
  for (const auto& f : r.findings) {
    if (f.severity == Severity::kError) out << "\n           - " << f.title;
  }
  out << "\n";
  return out.str();
}

std::string render_text(const ExplainReport& rep, const Report* machine, const std::string& machine_problem,
                        const Style& s, bool windows, Shell shell) {
  std::ostringstream out;
  if (rep.matches.empty()) {
    out << s.bold("Not recognised.") << " No message from cudnnup's catalogue was found in the "
        << rep.lines_read << " line(s) given.\n"
        << "If this is a cuDNN/CUDA error, the machine's picture may still help:\n";
  }
  if (!rep.machine_set_aside.empty()) {
    out << s.warn() << " The causes are ranked by the log alone: " << rep.machine_set_aside
        << ", so this machine's checks would not be about the machine the log comes from.\n\n";
  }
  int n = 0;
  for (const auto& e : rep.matches) {
    ++n;
    out << s.bold(std::to_string(n) + ". " + e.entry->title) << "  [" << severity_label(s, e.entry->severity) << ", "
        << lines_text(e) << "]\n";
    out << "   matched: " << s.dim(e.matched_text) << "\n";
    for (const auto& [entry, line] : e.folded) out << "   also:    " << entry->title << " (line " << line << ")\n";
    std::string vars;
    for (const auto& [k, v] : e.variables) {
      if (k == "status_meaning" || k == "builds") continue;  // said in the meaning and the fixes
      vars += (vars.empty() ? "" : ", ") + k + "=" + v;
    }
    if (!vars.empty()) out << "   found:   " << vars << "\n";
    out << "   meaning: " << e.meaning << "\n";
    if (e.entry->severity == MessageSeverity::kHarmless) {
      out << "   " << s.ok() << " This message is harmless: it does not mean cuDNN or the GPU is broken.\n";
    }
    if (!e.causes.empty()) {
      out << "   causes, most likely first" << (!rep.machine_set_aside.empty() || !e.machine_set_aside.empty() ? " (ranked by the log alone)"
                                                  : machine ? " on this machine" : " (machine not examined)")
          << ":\n";
      int k = 0;
      for (const auto& c : e.causes) {
        out << "     " << ++k << ". [" << verdict_label(s, c.verdict) << "] " << c.text << "\n";
        if (!c.reason.empty()) out << "        " << c.reason << "\n";
        if (!c.evidence.empty()) out << "        " << s.dim(c.evidence) << "\n";
      }
    }
    bool printed_fix_header = false;
    for (const auto& f : e.fixes) {
      const auto& steps = windows ? f.windows_steps : f.linux_steps;
      if (!printed_fix_header) {
        out << "   fix:\n";
        printed_fix_header = true;
      }
      out << "     " << f.text << "\n";
      std::vector<std::string> lines = render_fix(steps, shell);
      for (size_t i = 0; i < steps.size(); ++i) {
        bool command = steps[i].kind != FixKind::kText;
        out << "       " << (!command ? "" : shell == Shell::kCmd || shell == Shell::kPwsh ? "> " : "$ ") << lines[i] << "\n";
      }
    }
    if (!e.entry->sources.empty()) {
      out << "   sources: " << e.entry->sources.front();
      if (e.entry->sources.size() > 1) out << " (+" << e.entry->sources.size() - 1 << " more in --json)";
      out << "\n";
    }
    out << "\n";
  }
  if (rep.matches_left_out > 0) {
    out << s.warn() << " " << rep.matches_left_out << " more distinct message(s) were recognised and not explained: the first "
        << kMaxExplanations << " are. Give the part of the log around the failure.\n\n";
  }
  if (rep.matches.empty()) {
    if (machine) out << machine_summary(*machine) << "Run `cudnnup doctor` for details.\n";
    else out << "  (" << machine_problem << ")\n";
  } else if (!machine) {
    out << s.dim("Causes were not checked against this machine: " + machine_problem) << "\n";
  }
  return out.str();
}

// The fixes of this machine's OS are written for the user's shell, the other OS's for its usual one.
nlohmann::ordered_json render_json(const ExplainReport& rep, const ErrorCatalogue& cat, const Report* machine,
                                   const std::string& machine_problem, int exit_code, bool windows, Shell shell) {
  using nlohmann::ordered_json;
  ordered_json out;
  out["schema"] = "cudnnup.explain/1";
  out["catalogue_version"] = cat.data_version;
  out["recognised"] = !rep.matches.empty();
  out["has_problem"] = rep.has_problem();
  out["lines_read"] = rep.lines_read;
  out["matches_left_out"] = rep.matches_left_out;
  ordered_json matches = ordered_json::array();
  for (const auto& e : rep.matches) {
    ordered_json m;
    m["id"] = e.entry->id;
    m["title"] = e.entry->title;
    m["severity"] = message_severity_name(e.entry->severity);
    m["harmless"] = e.entry->severity == MessageSeverity::kHarmless;
    m["matched_text"] = e.matched_text;
    m["lines"] = e.lines;
    m["occurrences"] = e.occurrences;
    ordered_json also = ordered_json::array();
    for (const auto& [entry, line] : e.folded) also.push_back({{"id", entry->id}, {"title", entry->title}, {"line", line}});
    m["also_recognised"] = std::move(also);
    m["variables"] = ordered_json::object();
    for (const auto& [k, v] : e.variables) m["variables"][k] = v;
    m["meaning"] = e.meaning;
    ordered_json causes = ordered_json::array();
    int rank = 0;
    for (const auto& c : e.causes) {
      ordered_json notes = ordered_json::array();
      for (const auto& n : c.log_evidence) notes.push_back({{"rule", n.rule}, {"effect", n.effect}, {"says", n.says}});
      causes.push_back({{"rank", ++rank},
                        {"text", c.text},
                        {"check", c.check},
                        {"verdict", c.verdict == Verdict::kHolds ? "holds"
                                    : c.verdict == Verdict::kUnknown ? "unknown" : "ruled_out"},
                        {"evidence", c.evidence},
                        {"log_evidence", std::move(notes)},
                        {"reason", c.reason},
                        {"score", c.score}});
    }
    m["causes"] = std::move(causes);
    ordered_json fixes = ordered_json::array();
    for (const auto& f : e.fixes) {
      fixes.push_back({{"text", f.text},
                       {"linux", render_fix(f.linux_steps, windows ? default_fix_shell(false) : shell)},
                       {"windows", render_fix(f.windows_steps, windows ? shell : default_fix_shell(true))},
                       {"linux_commands", fix_commands(f.linux_steps)},
                       {"windows_commands", fix_commands(f.windows_steps)}});
    }
    m["fixes"] = std::move(fixes);
    m["sources"] = e.entry->sources;
    matches.push_back(std::move(m));  // moved, as the arrays above: a log's matches make a large document
  }
  out["matches"] = std::move(matches);
  out["log_facts"] = ordered_json::object();
  for (const auto& [k, v] : rep.facts) out["log_facts"][k] = v;
  out["ranked_by"] = machine && rep.machine_set_aside.empty() ? "log_and_machine" : "log";
  out["machine_set_aside"] = rep.machine_set_aside.empty() ? ordered_json(nullptr) : ordered_json(rep.machine_set_aside);
  if (machine) {
    ordered_json mj;
    mj["os"] = machine->os;
    mj["driver"] = {{"present", machine->driver.present},
                    {"version", machine->driver.version_text},
                    {"cuda_version", machine->driver.cuda_version.known() ? machine->driver.cuda_version.str() : ""},
                    {"gpus", machine->driver.gpus.size()}};
    ordered_json copies = ordered_json::array();
    for (const auto& c : machine->copies) copies.push_back(copy_to_json(c));
    mj["cudnn_copies"] = copies;
    ordered_json findings = ordered_json::array();
    for (const auto& f : machine->findings) findings.push_back(finding_to_json(f, shell));
    mj["findings"] = findings;
    out["machine"] = mj;
  } else {
    out["machine"] = nullptr;
    out["machine_problem"] = machine_problem;
  }
  out["fix_shell"] = shell_name(shell);
  out["exit_code"] = exit_code;
  return out;
}

int run_explain(AppContext& ctx, const ExplainOptions& opt) {
  const auto& catalogue = builtin_error_catalogue();
  if (!catalogue) return report_error(ctx, catalogue.error());
  auto input = read_input(ctx, opt);
  if (!input) return report_error(ctx, input.error());

  Result<DoctorOutcome> outcome = make_error(ErrorCode::kNotFound, "not examined (--no-doctor)");
  if (!opt.no_doctor) outcome = collect_outcome(ctx);
  const Report* machine = outcome ? &outcome->report : nullptr;
  std::string machine_problem = outcome ? "" : outcome.error().message;
  // "On the search path" means where the loader model says a plain program looks, in its order.
  LoaderView loader;
  if (outcome && !outcome->plain_program.empty()) {
    loader.consumer = outcome->plain_program.front().target;
    for (const auto& c : outcome->plain_program.front().resolution.candidates) {
      std::string dir = paths::parent(c.path);
      auto canonical = ctx.fs->canonical(dir);
      if (canonical) dir = *canonical;
      if (std::find(loader.search_dirs.begin(), loader.search_dirs.end(), dir) == loader.search_dirs.end()) {
        loader.search_dirs.push_back(dir);
      }
    }
  }
  MachineView view{machine, loader.search_dirs.empty() ? nullptr : &loader};

  ExplainReport rep = explain_text(*input, *catalogue, view);
  int code = rep.matches.empty() ? kExitProblems : kExitOk;
  if (ctx.options.json) {
    std::cout << dump_json(render_json(rep, *catalogue, machine, machine_problem, code, ctx.env.windows(), fix_shell(ctx)), 2)
              << std::endl;
  } else {
    bool windows = machine ? machine->os == "windows" : ctx.env.windows();
    // A log from the other OS gets that OS's steps: they are for the machine it came from.
    if (auto p = rep.facts.find("platform"); !rep.machine_set_aside.empty() && p != rep.facts.end()) {
      windows = p->second == "windows";
    }
    // Steps for another OS than this one (that log, or a --machine report from it) are written for
    // that OS's usual shell, as in the JSON.
    Shell shell = windows == ctx.env.windows() ? fix_shell(ctx) : default_fix_shell(windows);
    std::cout << render_text(rep, machine, machine_problem, Style{ctx.color}, windows, shell);
  }
  return code;
}

}  // namespace

void add_explain_command(CLI::App& app, CommandAction& action) {
  auto opt = std::make_shared<ExplainOptions>();
  auto* cmd = app.add_subcommand("explain", "Explain a cuDNN/CUDA error message: what it means, its likely cause on this machine, the fix");
  cmd->add_option("text", opt->text, "The message (quote it), or - to read a log from stdin");
  cmd->add_option("-f,--file", opt->file, "Read the message or a whole log from this file")->type_name("FILE");
  cmd->add_flag("--no-doctor", opt->no_doctor,
                "Do not examine this machine (e.g. for a log from another machine); causes stay unranked");
  cmd->footer(
      "Finds every known message in the text (a log may hold several, with noise, CRLF, wrapped lines and log\n"
      "prefixes), and ranks each message's causes by what `cudnnup doctor` finds here: likely here, possible,\n"
      "or ruled out, with the evidence. Harmless messages are said to be harmless.\n\n"
      "Exit codes: 0 at least one message recognised (harmless ones included), 1 nothing recognised,\n"
      "2 usage error or unreadable input.\n"
      "Examples:\n"
      "  cudnnup explain \"Could not load library cudnn_cnn_infer64_8.dll. Error code 126\"\n"
      "  cudnnup explain --file train.log\n"
      "  python train.py 2>&1 | cudnnup explain -\n"
      "  cudnnup explain --json --file train.log | jq '.matches[].causes[0]'");
  cmd->callback([&action, opt] { action = [opt](AppContext& ctx) { return run_explain(ctx, *opt); }; });
}

}  // namespace cudnnup
