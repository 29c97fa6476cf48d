// cudnnup-manifest.json of a store version or a toolkit: uninstall acts on it. Parsed manifests
// go through the validation uninstall uses, for both roots; one that passes (what cudnnup would
// act on) must round-trip through JSON. (A refused one need not: an unknown entry type is
// refused by validation, and the writer only ever writes files, links and folders.)
#include "install/install_manifest.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(cudnnup::fuzz::bytes_of(data, size));
  auto m = cudnnup::manifest_from_json(text, "/m.json");
  if (!m) return 0;
  bool valid = cudnnup::validate_manifest(*m, "/store/versions/9.19.0.56+cuda13", "/m.json").ok() ||
               cudnnup::validate_manifest(*m, "/usr/local/cuda-13.0", "/m.json").ok();
  std::string out = cudnnup::manifest_to_json(*m);
  if (!valid) return 0;
  auto again = cudnnup::manifest_from_json(out, "/m.json");
  if (!again) cudnnup::fuzz::violation("manifest_to_json wrote what manifest_from_json refuses: " + again.error().message);
  if (cudnnup::manifest_to_json(*again) != out) cudnnup::fuzz::violation("a manifest does not round-trip");
  return 0;
}
