// Exit codes, the same for every command (docs/exit-codes.md).
#pragma once

namespace cudnnup {

enum ExitCode : int {
  kExitOk = 0,          // healthy / done
  kExitProblems = 1,    // the command ran and found errors (doctor), or the check failed (verify)
  kExitUsage = 2,       // bad arguments, unreadable input, or cudnnup itself failed
  kExitNoGpu = 3,       // the command needs an NVIDIA driver and GPU and there is none
  kExitConflict = 4,    // another cudnnup holds the lock, or the target changed under us
  // `exec` only, as POSIX shells use them: the command exists but cannot be run / does not exist.
  kExitCannotExecute = 126,
  kExitCommandNotFound = 127,
};

}  // namespace cudnnup
