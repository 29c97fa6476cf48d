#include "app/commands.h"
#include "app/exit_codes.h"

namespace cudnnup {

void add_doctor_command(CLI::App& app, CommandAction& action) {
  auto* cmd = app.add_subcommand("doctor", "Find the driver, CUDA toolkits and every cuDNN copy, and say what is wrong");
  cmd->callback([&action] { action = [](AppContext&) { return int(kExitOk); }; });
}

}  // namespace cudnnup
