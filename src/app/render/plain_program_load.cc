#include "app/render/plain_program_load.h"

#include "base/paths.h"
#include "diagnose/finding_text.h"

namespace cudnnup {

std::vector<PlainProgramLoad> plain_program_loads(const DoctorOutcome& outcome) {
  // Linux models the plain program in plain_program; Windows in windows_loads, beside the
  // active Python's answers, which are not a plain program's.
  std::vector<const WhichReport*> plain;
  for (const WhichReport& w : outcome.plain_program) plain.push_back(&w);
  for (const WhichReport& w : outcome.windows_loads) {
    if (w.target_kind == "plain") plain.push_back(&w);
  }
  std::vector<PlainProgramLoad> loads;
  for (const WhichReport* wp : plain) {
    const WhichReport& w = *wp;
    if (!w.resolution.found) continue;
    PlainProgramLoad load;
    load.which = &w;
    // A copy's lib_dir is canonical (base/model.h), so it is compared with the shim's canonical folder.
    std::string dir = paths::parent(w.resolution.canonical.empty() ? w.resolution.path : w.resolution.canonical);
    for (const CudnnCopy& c : outcome.report.copies) {
      if (c.lib_dir == dir) load.copy = &c;
    }
    if (w.cudnn && w.cudnn->shim_version) load.version = *w.cudnn->shim_version;
    else if (load.copy) load.version = effective_version(*load.copy);
    if (load.copy) load.cuda_major = load.copy->cuda_major;
    loads.push_back(load);
  }
  return loads;
}

}  // namespace cudnnup
