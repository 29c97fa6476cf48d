// What `cudnnup explain` pulls out of a message once a catalogue pattern matched it: a library
// name, required and found versions, a status, a driver's CUDA number, each as text from the log.
// The input is split at newlines into those values in that order (the catalogue's captures give
// only part of this range; the fuzzer gives any bytes). Many thousand inputs a second, where the
// `explain` target runs every catalogue pattern over every line and reaches about a hundred.
#include <string>

#include "explain/explain.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto& catalogue = cudnnup::builtin_error_catalogue();
  if (!catalogue) cudnnup::fuzz::violation("the built-in catalogue does not parse: " + catalogue.error().message);
  static const char* const kKeys[] = {"lib", "required", "found", "status", "driver_cuda"};
  std::string_view text = cudnnup::fuzz::bytes_of(data, size);
  cudnnup::Variables vars;
  for (const char* key : kKeys) {
    size_t nl = text.find('\n');
    if (!text.empty()) vars[key] = std::string(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  cudnnup::derive_variables(vars, *catalogue);
  return 0;
}
