// The cuDNN API a copy must export for verify, bench and the frameworks to work: a shim that lacks
// any of these is not a usable cuDNN, whatever its version functions say. Checked against the
// shim's exports at verify's library stage (by name; a missing one fails the stage with its name).
// The list is checked against the real cuDNN 9.19 shim where the machine has it
// (tests/unit/gpu/cudnn_symbols_test.cc).
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

struct CudnnSymbolGroup {
  std::string name;                  // "backend (graph) API"
  std::string used_by;               // who needs it, for the finding
  std::vector<std::string> symbols;
};

// The groups for a cuDNN major (8 or 9; others get the 9.x list).
std::vector<CudnnSymbolGroup> required_cudnn_symbols(int major);

// The sub-library version checks of a major, in the order frameworks call them: 9.x
// cudnn{Graph,Ops,Cnn,Adv}VersionCheck, 8.x cudnn{Ops,Cnn,Adv}{Infer,Train}VersionCheck.
std::vector<std::string> cudnn_version_check_functions(int major);

}  // namespace cudnnup
