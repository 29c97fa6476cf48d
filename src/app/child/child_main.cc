// cudnnup-child: the lean executable of the child processes (`cudnnup-child __child REQUEST`,
// core/child/protocol.h). doctor starts one per cuDNN copy and framework, so its start-up is paid
// many times per run: it links only the child tasks, with no CLI and none of libarchive, libcurl,
// OpenSSL and the shared libraries they pull in (the full cudnnup links about 45). The same tasks
// also run as `cudnnup __child` (cmd_child.cc), which child_runner.cc uses when this file is not
// installed beside cudnnup. docs/design.md, "Child processes".
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "app/child/child_tasks.h"
#include "app/cli/exit_codes.h"
#include "child/protocol.h"
#include "platform/real_filesystem.h"
#include "platform/system.h"

using namespace cudnnup;

namespace {

int run_child(int argc, char** argv) {
  const std::vector<std::string> args = command_line_arguments(argc, argv);  // UTF-8 on every OS
  if (args.size() != 3 || args[1] != kChildEntryPoint) {
    std::cerr << "cudnnup-child: only cudnnup starts this program, as: cudnnup-child " << kChildEntryPoint
              << " REQUEST (a " << kChildProtocol << " JSON object)\n";
    return kExitUsage;
  }
  AppContext ctx;
  ctx.fs = make_real_filesystem();
  ctx.env = current_environment();
  int rc = run_child_request(ctx, args[2]);
  std::fflush(stdout);
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  // As in cudnnup's main(): an exception that escapes a task is a bug, reported with the
  // documented exit code instead of a signal. The parent reads it as a failed run.
  try {
    return run_child(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "cudnnup-child: internal error (" << e.what() << ")\n";
  } catch (...) {
    std::cerr << "cudnnup-child: internal error (an exception of unknown type)\n";
  }
  return kExitUsage;  // cudnnup itself failed (app/cli/exit_codes.h)
}
