// The real-log corpus of `cudnnup explain` (tests/data/explain/corpus/*.log, described in its
// INDEX.md): each log with the thread's resolution as headers, and the machine the thread
// describes as a compact `#@ fixture:` line that becomes a doctor Report.
//
// Fixture grammar: items separated by ';', each `key=value` (or the word `unknown`), os first:
//   os=linux|windows
//   driver=VERSION | driver=? | driver=none     (a known version also gives the CUDA it runs, from rules.json)
//   gpu=CC MIB NAME...  (CC or MIB may be ?)    one GPU each; none written = none seen by the thread
//   toolkit=VERSION PATH
//   cudnn=VERSION cuN VIA [lacks=a,b] [devlink] PATH
//       VERSION 8.9.7, or a major alone (9); cuN the CUDA major it is built for (cu0: unknown);
//       VIA how doctor found it: ldcache, ldpath, path, system (on the search path) or
//       pip, conda, venv, app, toolkit (not on it); lacks= sub-libraries missing from the copy;
//       devlink: the unversioned libcudnn.so is there too
//   zlibwapi=missing|x86                         (Windows: doctor's finding about zlibwapi.dll)
// `unknown` (optionally `unknown: why`) means the thread says nothing usable about the machine:
// doctor mode then has no machine picture, as with --no-doctor.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/model.h"
#include "base/result.h"

namespace cudnnup::testing {

struct CorpusLog {
  std::string name;
  std::string source, resolution, machine, fixture;
  std::vector<std::string> expect;  // entry ids ("new:" removed), the first one the thread is about
  std::string cause;                // the check id of the thread's cause ("new:" and the remark removed)
  bool holdout = false;
  std::vector<std::string> known_miss;  // "catalogue" and/or "doctor": first cause known to differ
  std::string text;                     // the log itself
};

// Every corpus log, sorted by name; empty when the directory is not readable (a cross-built binary).
std::vector<CorpusLog> load_corpus();
std::string corpus_dir();

// The Report the fixture line describes, with doctor's findings for it; nullopt for `unknown`.
Result<std::optional<Report>> fixture_report(const std::string& fixture);

}  // namespace cudnnup::testing
