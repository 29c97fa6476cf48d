// Which cuDNN copy each cuDNN file mapped into a process belongs to. A child that loaded a copy
// reports every file it mapped (/proc/self/maps, the Windows module list); a result is the copy's
// only when every mapped cuDNN file is from that copy's directory.
#pragma once

#include <string>
#include <vector>

namespace cudnnup {

struct MappedCudnnFile {
  std::string path;       // as mapped
  std::string directory;  // its directory
  int copy = -1;          // index into the copies given, -1: none of them
};

// The cuDNN runtime libraries among `mapped` (libcudnn*.so*, cudnn*.dll), each with the index of
// the copy (library directory) it lies in. Paths compare after normalisation, and without letter
// case on Windows; both sides should be canonical (mapped paths are, on Linux).
std::vector<MappedCudnnFile> attribute_cudnn_files(const std::vector<std::string>& mapped,
                                                   const std::vector<std::string>& copy_dirs, bool windows);

// The mapped cuDNN files that are not from `copy_dir` and are none of `own_files`: the copy's
// files after following links, since a folder of links into another one (a Spack or Nix view,
// links made by hand) maps the targets.
std::vector<MappedCudnnFile> foreign_cudnn_files(const std::vector<std::string>& mapped, const std::string& copy_dir,
                                                 bool windows, const std::vector<std::string>& own_files = {});

// The distinct directories of `files`, in first-seen order.
std::vector<std::string> directories_of(const std::vector<MappedCudnnFile>& files);

}  // namespace cudnnup
