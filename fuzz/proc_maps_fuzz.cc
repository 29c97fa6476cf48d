// /proc/PID/maps lines: the paths of mapped files may hold any byte a file name can, " (deleted)"
// suffixes included; then the grouping by cuDNN copy on the parsed paths.
#include "binfmt/proc_maps.h"
#include "fuzz_input.h"
#include "support/memory_fs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto files = cudnnup::parse_proc_maps(std::string(cudnnup::fuzz::bytes_of(data, size)));
  cudnnup::testing::MemoryFileSystem fs;
  for (const auto& f : files) {
    if (!f.deleted && !f.path.empty() && f.path[0] == '/') fs.add_file(f.path);
  }
  (void)cudnnup::group_cudnn_mappings(fs, files);
  return 0;
}
