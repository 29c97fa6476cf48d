// The `cudnnup install` step of a fix (base/fix.h), made in one place so every finding and
// verify stage offers the same command, in the form the command line accepts today.
#pragma once

#include <string>
#include <vector>

#include "base/fix.h"
#include "base/version.h"

namespace cudnnup {

// `cudnnup install VERSION [--cuda N] [--into DIR]` as the command line accepts it today: a release
// (three parts: NVIDIA's manifests are named by them) and the CUDA major, which only an --into
// toolkit of known version may leave out (install reads it from the toolkit). A plain step when
// the version, or the CUDA major without a toolkit, is unknown: never a placeholder.
FixStep install_fix(const Version& version, int cuda_major, const std::string& into = {});

// The newest release of a cuDNN major for a CUDA major, `cudnnup install 9 --cuda 13`, when
// cudnnup knows an official archive of such a build (facts/known_archives.h); a sentence if not.
FixStep install_newest_fix(int cudnn_major, int cuda_major, bool windows);

// A cudnnup command that needs the rights to change a toolkit: `sudo cudnnup ARGS` on Linux; on
// Windows, where no command line elevates the one it runs in, a step to open a terminal with "Run
// as administrator" and the command to type there.
std::vector<FixStep> elevated_cudnnup_steps(std::vector<std::string> args, bool windows);

}  // namespace cudnnup
