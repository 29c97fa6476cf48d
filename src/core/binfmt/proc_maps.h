// What a running process really mapped, from /proc/PID/maps text, grouped by cuDNN copy.
#pragma once

#include <string>
#include <vector>

#include "base/filesystem.h"
#include "base/result.h"

namespace cudnnup {

// The distinct file paths in /proc/PID/maps text, in first-mapped order. " (deleted)" suffixes
// are kept off the path and reported through `deleted`.
struct MappedFile {
  std::string path;
  bool deleted = false;  // the file was replaced or removed after it was mapped
};
std::vector<MappedFile> parse_proc_maps(const std::string& text);

struct CudnnCopyInProcess {
  std::string directory;           // canonical directory of the files
  std::vector<std::string> files;  // cuDNN files mapped from it
};

struct ProcessCudnnReport {
  int pid = 0;
  std::vector<CudnnCopyInProcess> copies;  // one per directory
  bool mixed = false;                      // files from more than one directory
  std::vector<std::string> deleted;        // mapped cuDNN files that no longer exist at that path
};

// Reads /proc/PID/maps through the FileSystem and groups libcudnn*.so* files by directory.
Result<ProcessCudnnReport> inspect_process_cudnn(const FileSystem& fs, int pid);
ProcessCudnnReport group_cudnn_mappings(const FileSystem& fs, const std::vector<MappedFile>& files);

}  // namespace cudnnup
