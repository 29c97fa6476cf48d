// `cudnnup doctor` as a pure function of the machine: discovery -> records -> checks -> findings.
#pragma once

#include <vector>

#include "base/environment.h"
#include "loader/frameworks.h"
#include "base/filesystem.h"
#include "diagnose/install_integrity.h"
#include "base/model.h"
#include "diagnose/prober.h"
#include "facts/rules.h"
#include "loader/windows/which_windows.h"

namespace cudnnup {

struct DoctorInputs {
  const FileSystem& fs;
  const Environment& env;
  Prober& prober;
  const Rules& rules;
  // `doctor --deep`: also compare the sha256 of every installed file with its install manifest.
  // Null (the default): existence and size only, which keeps doctor fast.
  const FileHasher* hasher = nullptr;
  // `doctor --for`: a program or shared object (absolute path), or a framework name; also
  // report what it loads under this environment. Empty: plain programs and every framework.
  std::string for_target = {};
};

// Everything doctor knows: the machine's Report (findings included) plus the answers of the
// loader model: what a plain program loads, and what each framework loads and whether it accepts it.
struct DoctorOutcome {
  Report report;
  std::vector<WhichReport> plain_program;    // one per cuDNN major found, as `-lcudnn` would load
  std::vector<WhichReport> for_program;      // --for PATH: one per cuDNN major found
  std::vector<FrameworkReport> frameworks;
  std::vector<std::string> python_envs;      // the prefixes of the Python environments looked in
  // Windows: the plain program per major and the active Python (core/windows_dll_checks.h).
  std::vector<WhichReport> windows_loads;
};

DoctorOutcome run_doctor_full(const DoctorInputs& inputs);
Report run_doctor(const DoctorInputs& inputs);  // run_doctor_full(...).report

}  // namespace cudnnup
