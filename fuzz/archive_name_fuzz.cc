// An archive's file name as the user (or a mirror) wrote it.
#include "install/archive_name.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view name = cudnnup::fuzz::bytes_of(data, size);
  (void)cudnnup::split_archive_extension(name);
  auto parsed = cudnnup::parse_archive_name(name);
  if (!parsed) return 0;
  (void)parsed->platform_key();
  (void)parsed->expected_top_dir();
  (void)parsed->version.str();
  // NVIDIA's spelling of a recognised name must be recognised as the same archive.
  auto again = cudnnup::parse_archive_name(parsed->canonical_name);
  if (!again) cudnnup::fuzz::violation("canonical name '" + parsed->canonical_name + "' is not recognised");
  if (!(again->version == parsed->version)) cudnnup::fuzz::violation("canonical name changes the version");
  return 0;
}
