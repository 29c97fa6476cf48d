#include "support/fix_check.h"

#include "install/release_index.h"

#include <filesystem>

#include "app/cli/cli_definition.h"
#include "base/version.h"

namespace cudnnup::testing {
namespace {

struct Parsed {
  CLI::App app{kProgramHelp, "cudnnup"};
  GlobalArgs global;
  CommandAction action;
  std::string problem;
};

// Parses as main() does: CLI11 (options, values, validators), then the global option checks.
void parse(Parsed& p, const std::vector<std::string>& argv) {
  define_cli(p.app, p.global, p.action);
  std::vector<std::string> words = argv;
  std::vector<char*> ptrs;
  for (auto& w : words) ptrs.push_back(w.data());
  try {
    p.app.parse(static_cast<int>(ptrs.size()), ptrs.data());
  } catch (const CLI::Success&) {
    p.problem = "asks for --help";
    return;
  } catch (const CLI::ParseError& e) {
    p.problem = std::string("CLI11: ") + e.what();
    return;
  }
  const CLI::App* command = chosen_command(p.app);
  if (auto options = resolve_global_options(p.global, command); !options) {
    p.problem = options.error().message;
  } else if (!p.action) {
    p.problem = "names no command";
  }
}

// run_install_command's refusals that come before any file or network: a version must be a
// release spec (install/release_index.h: 9.19.0, 9.19, 9, latest). A printed fix names its CUDA
// build too (--cuda, or --into a toolkit it is read from): install could guess it from this
// machine, but a fix is a promise about one build, not a guess.
std::string install_refusal(const CLI::App& install) {
  const CLI::Option* source = install.get_option("archive_or_version");
  std::string arg = source->count() ? source->as<std::string>() : std::string();
  if (install.get_option("--locked")->count() && arg.empty()) return "";  // the lock names the version
  if (std::filesystem::exists(arg)) return "";
  // An archive an error names (the permission hint repeats the install the user ran): the file is
  // on the machine that printed it.
  for (const char* ext : {".tar.xz", ".zip"}) {
    if (arg.ends_with(ext)) return "";
  }
  if (!parse_release_spec(arg)) return "install: '" + arg + "' is neither an archive file nor a version (no such archive)";
  if (install.get_option("--cuda")->count() == 0 && install.get_option("--into")->count() == 0) {
    return "install: a printed version needs --cuda N (which CUDA build of cuDNN " + arg + "?)";
  }
  return "";
}

}  // namespace

std::string cli_refusal(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0] != "cudnnup") return "not a cudnnup command";
  Parsed p;
  parse(p, argv);
  if (!p.problem.empty()) return p.problem;
  const CLI::App* command = chosen_command(p.app);
  if (command_path(command) == "install") return install_refusal(*command);
  return "";
}

std::string cli_command_path(const std::vector<std::string>& argv) {
  Parsed p;
  parse(p, argv);
  return p.problem.empty() ? command_path(chosen_command(p.app)) : std::string();
}

}  // namespace cudnnup::testing
