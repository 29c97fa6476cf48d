// <store>/journal/*.json: recovery reads every journal before every command. Parsed journals go
// through the same validation recovery uses, and must round-trip through JSON text.
#include "install/transaction.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(cudnnup::fuzz::bytes_of(data, size));
  auto journal = cudnnup::journal_from_json(text);
  if (!journal) return 0;
  (void)cudnnup::validate_journal(*journal, "/store");
  (void)cudnnup::private_area(journal->kind);
  std::string out = cudnnup::journal_to_json(*journal);
  auto again = cudnnup::journal_from_json(out);
  if (!again) cudnnup::fuzz::violation("journal_to_json wrote what journal_from_json refuses: " + again.error().message);
  if (cudnnup::journal_to_json(*again) != out) cudnnup::fuzz::violation("a journal does not round-trip");
  return 0;
}
