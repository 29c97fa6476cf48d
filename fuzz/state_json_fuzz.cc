// <store>/state.json: whoever can write the store can write it. What parses must serialise to
// valid JSON that parses back to the same text.
#include "store/state_store.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(cudnnup::fuzz::bytes_of(data, size));
  auto state = cudnnup::state_from_json(text, "/store/state.json");
  if (!state) return 0;
  std::string out = cudnnup::state_to_json(*state);
  auto again = cudnnup::state_from_json(out, "/store/state.json");
  if (!again) cudnnup::fuzz::violation("state_to_json wrote what state_from_json refuses: " + again.error().message);
  if (cudnnup::state_to_json(*again) != out) cudnnup::fuzz::violation("state.json does not round-trip");
  return 0;
}
