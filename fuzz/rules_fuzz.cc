// The rules file of `doctor --db FILE` (data/rules.json's format), which any user may pass.
#include "facts/rules.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)cudnnup::parse_rules(cudnnup::fuzz::bytes_of(data, size), "rules_fuzz.json");
  return 0;
}
