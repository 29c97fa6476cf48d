// cudnn_version.h (or cudnn.h for 7.x) text: the version macros cudnnup reads from every copy.
#include "facts/cudnn_files.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto v = cudnnup::parse_cudnn_header_version(cudnnup::fuzz::bytes_of(data, size));
  if (v) (void)v->version.str();
  return 0;
}
