#include "diagnose/early_probes.h"

#include "base/paths.h"
#include "facts/cudnn_files.h"

namespace cudnnup {

std::string shim_to_probe(const CudnnCopy& copy) {
  std::string fallback;
  for (const auto& lib : copy.libraries) {
    if (lib.component != "cudnn" || !lib.problems.empty()) continue;
    auto name = parse_cudnn_library_name(paths::basename(lib.path));
    if (name && name->soname) return lib.path;
    if (fallback.empty()) fallback = lib.path;
  }
  return fallback;
}

void EarlyProbes::start_for(const std::vector<CudnnCopy>& copies) {
  for (const auto& copy : copies) {
    std::string shim = shim_to_probe(copy);
    if (!shim.empty()) start({shim, copy.lib_dir});
  }
}

void EarlyProbes::start_in_dir(const FileSystem& fs, const std::string& dir, bool windows) {
  if (started_.size() >= limit_) return;
  auto lib_dir = fs.canonical(dir);  // the scan names copies by their canonical directory
  if (!lib_dir) return;
  auto listing = fs.list_dir(*lib_dir);
  if (!listing) return;
  for (const auto& e : *listing) {
    if (e.type == FileType::kDirectory) continue;
    auto name = parse_cudnn_library_name(e.name);
    if (!name || !name->shim() || !name->soname || name->windows != windows) continue;
    // Only what the scan would probe too: a regular file with bytes (a FIFO or a device would
    // block the child's dlopen, a dangling link or an empty file only fail).
    std::string path = *lib_dir + "/" + e.name;
    auto st = fs.stat(path);
    if (st && st->type == FileType::kRegular && st->size > 0) start({path, *lib_dir});
  }
}

void EarlyProbes::start(const ProbeRequest& request) {
  if (started_.size() >= limit_) return;
  for (const auto& s : started_) {
    if (s.request.library_path == request.library_path && s.request.lib_dir == request.lib_dir) return;
  }
  started_.push_back({request, prober_.start_cudnn_probes({request})});
}

bool EarlyProbes::has(const ProbeRequest& request) const {
  for (const auto& s : started_) {
    if (s.answer && s.request.library_path == request.library_path && s.request.lib_dir == request.lib_dir) return true;
  }
  return false;
}

LibraryProbe EarlyProbes::take(const ProbeRequest& request) {
  for (auto& s : started_) {
    if (!s.answer || s.request.library_path != request.library_path || s.request.lib_dir != request.lib_dir) continue;
    auto answers = s.answer();
    s.answer = nullptr;  // what it held (a child already read) is released here
    if (answers.size() == 1) return std::move(answers.front());
    break;
  }
  LibraryProbe none;
  none.attempted = true;
  none.failure = "loading " + request.library_path + ": the probe reported no result";
  return none;
}

}  // namespace cudnnup
