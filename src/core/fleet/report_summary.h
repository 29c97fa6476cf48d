// One host's `cudnnup --json doctor` report (cudnnup.doctor/1, docs/json-schema.md) reduced to
// the little that `cudnnup fleet` compares: the host, what a plain program loads there, and the
// finding counts. The bytes come from other machines: they are parsed as a stream of events
// (no document tree is built), every string is only data (never a path to open), and any input
// gives a ReportReading, never an exception.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/model.h"

namespace cudnnup {

// The copy one cuDNN major's plain program loads (doctor's "plain_program", or on Windows
// "windows_loads"): the version, the CUDA major it was built for and its form, from the report's
// own "copies" entry for the file that loads.
struct FleetLoadedCopy {
  std::string version;  // "9.19.0.56" (checked to be a version); "" when the report does not know
  int cuda_major = 0;   // 0: unknown
  // A form name this cudnnup does not know, or no copy of the report holding the file: kUnknown.
  PackageForm form = PackageForm::kUnknown;
  bool operator==(const FleetLoadedCopy&) const = default;
  auto operator<=>(const FleetLoadedCopy&) const = default;
};

struct ReportSummary {
  std::string host;
  std::string os;
  std::vector<FleetLoadedCopy> loads;  // sorted; empty: no cuDNN loads
  int errors = 0, warnings = 0, infos = 0;
  int exit_code = 0;                    // doctor's own
  std::vector<std::string> error_ids;   // distinct ids of the error-level findings, first few
};

// Why a report is not counted; a stable name for each goes into `fleet --json` ("kind").
enum class ReportProblem {
  kNone,
  kEmpty,          // 0 bytes (the command that should have written it did not)
  kTruncated,      // valid JSON that ends too early: a copy cut short
  kMalformed,      // not JSON, or JSON whose doctor fields have the wrong type
  kTooLarge,       // larger than kMaxReportBytes: not read
  kUnreadable,     // the file could not be read (permission, a FIFO, ...)
  kNotDoctor,      // another cudnnup document or foreign JSON
  kDoctorFailed,   // a cudnnup.error/1 document: doctor itself failed on that host
  kOlderSchema,    // cudnnup.doctor/1 from a cudnnup before `host` was added
  kUnknownSchema,  // cudnnup.doctor/N for an N this cudnnup does not know
  kBadHost,        // "host" is empty, too long or holds characters no host name has
  kDuplicate,      // a second report for a host already counted (fleet_summary.h sets it)
};
const char* report_problem_name(ReportProblem p);

struct ReportReading {
  ReportProblem problem = ReportProblem::kNone;
  std::string detail;  // one sentence: what is wrong and what to do
  ReportSummary summary;
};

// One report file may be at most this large: a doctor report of a machine with many copies is
// a few hundred kB, and a fleet of 10,000 must fit in little memory (docs/commands/fleet.md).
inline constexpr size_t kMaxReportBytes = size_t{16} << 20;

// Reads one report. `bytes` is the whole file.
ReportReading read_doctor_report(std::string_view bytes);

// "cuDNN 9.19.0 for CUDA 13 (pip)", "no cuDNN", several majors joined with " + ".
std::string describe_loads(const std::vector<FleetLoadedCopy>& loads);

}  // namespace cudnnup
