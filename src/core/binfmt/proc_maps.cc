#include "binfmt/proc_maps.h"

#include <set>
#include <sstream>

#include "base/paths.h"
#include "facts/cudnn_files.h"

namespace cudnnup {

std::vector<MappedFile> parse_proc_maps(const std::string& text) {
  std::vector<MappedFile> out;
  std::set<std::string> seen;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // address perms offset dev inode pathname; the path starts at the first '/' after the inode.
    std::istringstream fields(line);
    std::string address, perms, offset, dev, inode;
    if (!(fields >> address >> perms >> offset >> dev >> inode)) continue;
    size_t slash = line.find('/', line.find(inode, address.size()) + inode.size());
    if (slash == std::string::npos) continue;  // [heap], [stack], anonymous
    MappedFile f;
    f.path = line.substr(slash);
    const std::string suffix = " (deleted)";
    if (f.path.size() > suffix.size() && f.path.compare(f.path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      f.path.erase(f.path.size() - suffix.size());
      f.deleted = true;
    }
    if (seen.insert(f.path).second) out.push_back(f);
  }
  return out;
}

ProcessCudnnReport group_cudnn_mappings(const FileSystem& fs, const std::vector<MappedFile>& files) {
  ProcessCudnnReport report;
  for (const MappedFile& f : files) {
    auto name = parse_cudnn_library_name(paths::basename(f.path));
    if (!name || name->windows) continue;
    if (f.deleted) report.deleted.push_back(f.path);
    auto canon = f.deleted ? Result<std::string>(f.path) : fs.canonical(f.path);
    std::string dir = paths::parent(canon ? *canon : f.path);
    CudnnCopyInProcess* copy = nullptr;
    for (auto& c : report.copies) {
      if (c.directory == dir) copy = &c;
    }
    if (!copy) {
      report.copies.push_back({dir, {}});
      copy = &report.copies.back();
    }
    copy->files.push_back(f.path);
  }
  report.mixed = report.copies.size() > 1;
  return report;
}

Result<ProcessCudnnReport> inspect_process_cudnn(const FileSystem& fs, int pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/maps";
  auto text = fs.read_file(path, 64 << 20);
  if (!text) {
    Error e = text.error();
    e.path = path;
    e.message = "cannot read " + path + ": " + e.message +
                (e.code == ErrorCode::kPermission ? " (run as the same user as the process, or with sudo)"
                                                   : " (is the process id right and still running?)");
    return e;
  }
  ProcessCudnnReport report = group_cudnn_mappings(fs, parse_proc_maps(*text));
  report.pid = pid;
  return report;
}

}  // namespace cudnnup
