// NVIDIA's redistrib_<version>.json, as a mirror (or anyone on the path to it) serves it.
#include "install/redistrib.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(cudnnup::fuzz::bytes_of(data, size));
  auto m = cudnnup::parse_redistrib(text, "redistrib_fuzz.json");
  if (!m) return 0;
  for (int major : {11, 12, 13}) (void)cudnnup::select_redistrib(*m, "linux-x86_64", major);
  for (const auto& e : m->entries) (void)cudnnup::redistrib_file_names(e.version);
  return 0;
}
