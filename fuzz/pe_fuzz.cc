// parse_pe over any bytes: cudnnup reads the headers, imports and VERSIONINFO of every cudnn*.dll
// it finds on Windows, and any of them may be truncated, damaged or crafted.
#include "binfmt/pe.h"
#include "fuzz_input.h"
#include "range_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = cudnnup::fuzz::bytes_of(data, size);
  auto info = cudnnup::parse_pe(cudnnup::fuzz::reader_over(bytes), bytes.size());
  if (info) {
    (void)cudnnup::pe_machine_name(info->machine);
    if (info->file_version) (void)cudnnup::pe_version_string(*info->file_version);
  }
  return 0;
}
