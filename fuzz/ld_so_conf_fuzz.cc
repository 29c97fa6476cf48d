// /etc/ld.so.conf and the files it includes: the input is the main file, and the same bytes are
// also an included file, so `include` lines (loops included) are followed.
#include "binfmt/ld_so_conf.h"
#include "fuzz_input.h"
#include "support/memory_fs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(cudnnup::fuzz::bytes_of(data, size));
  cudnnup::testing::MemoryFileSystem fs;
  fs.add_file("/etc/ld.so.conf", text);
  fs.add_file("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", text);
  fs.add_file("/etc/ld.so.conf.d/cuda.conf", "/usr/local/cuda/lib64\n");
  fs.add_dir("/usr/local/cuda/lib64");
  (void)cudnnup::read_ld_so_conf(fs);
  return 0;
}
