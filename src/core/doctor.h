// `cudnnup doctor` as a pure function of the machine: discovery -> records -> checks -> findings.
#pragma once

#include "core/environment.h"
#include "core/filesystem.h"
#include "core/model.h"
#include "core/prober.h"
#include "core/rules.h"

namespace cudnnup {

struct DoctorInputs {
  const FileSystem& fs;
  const Environment& env;
  Prober& prober;
  const Rules& rules;
};

Report run_doctor(const DoctorInputs& inputs);

}  // namespace cudnnup
