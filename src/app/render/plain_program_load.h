// The cuDNN copy a plain program linked with -lcudnn loads, as doctor's "What loads" predicts it,
// for the machine-readable formats that report it in one line (prometheus, nfd).
#pragma once

#include <vector>

#include "base/model.h"
#include "diagnose/doctor.h"

namespace cudnnup {

struct PlainProgramLoad {
  const WhichReport* which = nullptr;  // doctor's answer for one library name (libcudnn.so.9)
  const CudnnCopy* copy = nullptr;     // the copy of the report whose library folder holds the loaded shim, if any
  Version version;                     // the loaded shim's version, else its copy's; unknown when neither says
  int cuda_major = 0;                  // its copy's CUDA major; 0 when unknown
};

// Every library name that loads, highest cuDNN major first (the order doctor models them in):
// front() is what a program linked with plain -lcudnn gets.
std::vector<PlainProgramLoad> plain_program_loads(const DoctorOutcome& outcome);

}  // namespace cudnnup
