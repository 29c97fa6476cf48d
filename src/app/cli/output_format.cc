#include "app/cli/output_format.h"

#include <map>

namespace cudnnup {

const std::vector<FormatInfo>& output_formats() {
  static const std::vector<FormatInfo> formats = {
      {OutputFormat::kText, "text", "the default, for people"},
      {OutputFormat::kJson, "json", "docs/json-schema.md"},
      {OutputFormat::kPrometheus, "prometheus", "doctor only: metrics for node_exporter's textfile collector"},
      {OutputFormat::kNfd, "nfd", "doctor only: node labels for Node Feature Discovery"},
      {OutputFormat::kHtml, "html", "doctor and fleet: one self-contained page to share"},
  };
  return formats;
}

std::vector<std::string> output_format_names() {
  std::vector<std::string> names;
  for (const auto& f : output_formats()) names.push_back(f.name);
  return names;
}

std::string output_format_help() {
  std::string help = "Output format:";
  const auto& formats = output_formats();
  for (size_t i = 0; i < formats.size(); ++i) {
    help += std::string(i ? "," : "") + " " + formats[i].name + " (" + formats[i].help + ")";
  }
  return help;
}

const char* output_format_name(OutputFormat f) {
  for (const auto& info : output_formats()) {
    if (info.format == f) return info.name;
  }
  return "text";
}

namespace {
std::map<std::string, std::vector<OutputFormat>>& offers() {
  static std::map<std::string, std::vector<OutputFormat>> m;
  return m;
}
}  // namespace

void offer_formats(const std::string& command_path, std::vector<OutputFormat> formats) {
  offers()[command_path] = std::move(formats);
}

std::vector<OutputFormat> offered_formats(const std::string& command_path) {
  auto it = offers().find(command_path);
  if (it != offers().end()) return it->second;
  return {OutputFormat::kText, OutputFormat::kJson};
}

std::vector<std::string> color_choice_names() { return {"auto", "always", "never"}; }

bool use_color(ColorChoice choice, OutputFormat format, const std::optional<std::string>& no_color_env,
               const std::optional<std::string>& term_env, bool stdout_is_tty) {
  if (format != OutputFormat::kText) return false;
  if (choice != ColorChoice::kAuto) return choice == ColorChoice::kAlways;
  if (no_color_env && !no_color_env->empty()) return false;
  if (term_env && *term_env == "dumb") return false;
  return stdout_is_tty;
}

}  // namespace cudnnup
