// The loader environment of a child that loads a cuDNN copy: the copy's own, not the user's.
// cuDNN's shim loads its sub-libraries by bare name (libcudnn_graph.so.9), so an inherited
// LD_LIBRARY_PATH or LD_PRELOAD decides which copy's files answer; the child must test the copy.
// What the user's environment does to a program is the loader model's question (which, doctor).
#pragma once

#include <map>
#include <string>

#include "base/environment.h"

namespace cudnnup {

// The parent's variables, minus those that change what the dynamic loader maps (LD_PRELOAD,
// LD_AUDIT, LD_LIBRARY_PATH), with LD_LIBRARY_PATH set to `lib_dir` alone. Windows: PATH starts
// with `lib_dir` (the child also takes the current directory out of the DLL search).
std::map<std::string, std::string> child_loader_environment(const Environment& env, const std::string& lib_dir);

}  // namespace cudnnup
