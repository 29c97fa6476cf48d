// Small facts about the running process and its terminal.
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"

namespace cudnnup {

Environment current_environment();
// The system this build runs on (what current_environment().os says), for texts written before
// the environment is read: `--help` speaks of %LOCALAPPDATA% on Windows, $XDG_DATA_HOME on Linux.
OsKind host_os();
bool stdout_is_terminal();
bool stderr_is_terminal();  // where progress lines go
// Makes stdout UTF-8 and ANSI-capable where that needs asking (Windows consoles).
void prepare_console();
// The command-line arguments as UTF-8 (on Windows re-read as UTF-16, since argv is in the ANSI
// code page there).
std::vector<std::string> command_line_arguments(int argc, char** argv);
// This machine's host name as the network knows it (gethostname, GetComputerNameEx's DNS host
// name): what `cudnnup fleet` groups reports by. Empty when the OS does not say.
std::string host_name();

}  // namespace cudnnup
