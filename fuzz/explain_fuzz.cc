// `cudnnup explain`'s input: a pasted log in any encoding, with any line endings and noise,
// matched against the built-in catalogue (no machine picture: every check says unknown).
#include "explain/explain.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto& catalogue = cudnnup::builtin_error_catalogue();
  if (!catalogue) cudnnup::fuzz::violation("the built-in catalogue does not parse: " + catalogue.error().message);
  (void)cudnnup::explain_text(cudnnup::fuzz::bytes_of(data, size), *catalogue, cudnnup::MachineView{});
  return 0;
}
