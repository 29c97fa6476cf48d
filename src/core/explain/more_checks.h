// Checks for causes the real-log corpus showed (tests/data/explain/corpus): a runtime cuDNN newer
// than the build, a cuDNN installation that loads but does not work, a program built with a CUDA
// older than the GPU's architecture, an unversioned libcudnn.so that old programs open, a
// Windows install path a glob cannot read, and a CUDA JIT cache the user cannot update. Registered with the others in explain_checks.cc.
#pragma once

#include "explain/explain_checks.h"

namespace cudnnup::more_checks {

CheckResult cudnn_newer_than_built(const MachineView& m, const Variables& vars, const CheckParams& params);
CheckResult cudnn_install_broken(const MachineView& m, const Variables& vars, const CheckParams& params);
CheckResult cuda_build_predates_gpu(const MachineView& m, const Variables& vars, const CheckParams& params);
CheckResult cudnn_unversioned_symlink_missing(const MachineView& m, const Variables& vars, const CheckParams& params);
CheckResult install_path_special_chars(const MachineView& m, const Variables& vars, const CheckParams& params);
CheckResult cuda_jit_cache_unusable(const MachineView& m, const Variables& vars, const CheckParams& params);

}  // namespace cudnnup::more_checks
