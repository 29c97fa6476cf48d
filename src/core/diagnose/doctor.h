// `cudnnup doctor` as a pure function of the machine: discovery -> records -> checks -> findings.
#pragma once

#include <functional>
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

// The rules doctor's checks read, at its end: a table already parsed, or the built-in one, asked
// for only then. The caller may be parsing the built-in table on another thread meanwhile
// (app/commands/doctor_runner.cc, ~0.7 ms); builtin_rules() waits for a parse in progress.
class DoctorRules {
 public:
  DoctorRules(const Rules& rules) : given_(&rules) {}  // implicit: a table that is already parsed
  DoctorRules(Rules&&) = delete;                       // it keeps a pointer: no temporaries
  static DoctorRules builtin() { return DoctorRules(); }
  const Rules& get() const { return given_ ? *given_ : builtin_rules(); }

 private:
  DoctorRules() = default;
  const Rules* given_ = nullptr;
};

// Runs work beside the calling thread (cudnnup passes platform/helper_thread.h's run_beside: one
// long-lived helper thread on another CPU). Null: doctor starts a thread of its own.
using RunBeside = void (*)(std::function<void()> work);

struct DoctorInputs {
  const FileSystem& fs;
  const Environment& env;
  Prober& prober;
  DoctorRules rules;
  // `doctor --deep`: also compare the sha256 of every installed file with its install manifest.
  // Null (the default): existence and size only, which keeps doctor fast.
  const FileHasher* hasher = nullptr;
  // `doctor --for`: a program or shared object (absolute path), or a framework name; also
  // report what it loads under this environment. Empty: plain programs and every framework.
  std::string for_target = {};
  RunBeside run_beside = nullptr;
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
