// What the loader model predicts (doctor's "What loads"), turned into findings. These are about
// the user's environment and the search path, never about a copy's own health: a copy is judged
// by its isolated probe and its files (diagnose/copy_checks.h); here a program, a framework or a
// --for target is judged by what it would map, and every fix addresses the environment (which
// variable, which entry) rather than the copies.
//
//   cudnn.shadowed             several copies of one major on a plain program's search path
//   loader.mixed_copies        a target would map cuDNN files of more than one copy
//   env.redirects_cudnn        LD_LIBRARY_PATH / LD_PRELOAD make a target load another copy than
//                              it would without them
#pragma once

#include <string>
#include <vector>

#include "base/environment.h"
#include "base/filesystem.h"
#include "base/model.h"
#include "loader/frameworks.h"
#include "loader/which.h"

namespace cudnnup {

struct LoadTarget {
  std::string label;            // "a plain program linked with -lcudnn", "torch 2.9.0 in /venv", "/opt/app/train"
  std::vector<std::string> which_args;  // the `cudnnup which ...` that shows every candidate, without "cudnnup"
  const WhichReport* with_env = nullptr;
  // The same target with LD_LIBRARY_PATH and LD_PRELOAD unset; null when the environment sets neither.
  const WhichReport* without_env = nullptr;
  bool judge_shadowing = false;  // plain programs: several copies on the search path
  bool judge_mix = true;         // false where framework.cudnn_rejected already reports the mix
};

std::vector<Finding> check_loads(const std::vector<LoadTarget>& targets, const Report& report, const FileSystem& fs,
                                 const Environment& env);

// framework.cudnn_rejected: a framework would load a cuDNN its own check refuses, or a mix, or none.
// When the user's environment caused it, the fix says which variable and entry.
std::vector<Finding> check_frameworks(const std::vector<FrameworkReport>& frameworks, const Report& report,
                                      const FileSystem& fs, const Environment& env);

// The variables a user sets to steer the loader (LD_LIBRARY_PATH, LD_PRELOAD).
bool sets_loader_variables(const Environment& env);
Environment without_loader_variables(const Environment& env);

}  // namespace cudnnup
