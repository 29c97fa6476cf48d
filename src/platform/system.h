// Small facts about the running process and its terminal.
#pragma once

#include "core/environment.h"

namespace cudnnup {

Environment current_environment();
bool stdout_is_terminal();
// Makes stdout UTF-8 and ANSI-capable where that needs asking (Windows consoles).
void prepare_console();

}  // namespace cudnnup
