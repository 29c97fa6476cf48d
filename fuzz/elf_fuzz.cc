// parse_elf and find_elf_section over any bytes: cudnnup reads the headers of every libcudnn*.so* it finds, and any of
// them may be truncated, damaged or crafted.
#include "binfmt/elf.h"
#include "fuzz_input.h"
#include "range_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes = cudnnup::fuzz::bytes_of(data, size);
  auto info = cudnnup::parse_elf(cudnnup::fuzz::reader_over(bytes), bytes.size());
  // A claimed size larger than the bytes (a file that shrank while read) must not crash either.
  if (size > 0) (void)cudnnup::parse_elf(cudnnup::fuzz::reader_over(bytes), bytes.size() * 2 + 64);
  if (info) (void)cudnnup::elf_machine_name(info->machine);
  // The section lookup doctor uses for ld.so's .rodata: whatever it answers lies inside the file.
  if (auto s = cudnnup::find_elf_section(cudnnup::fuzz::reader_over(bytes), bytes.size(), ".rodata")) {
    if (s->offset > bytes.size() || s->size > bytes.size() - s->offset) __builtin_trap();
  }
  return 0;
}
