// A mirror's index page (its HTML, as the mirror or anyone on the path to it serves it) and the
// file names of a mirror folder: which releases they list, and what `install 9` then chooses.
#include <algorithm>

#include "fuzz_input.h"
#include "install/redistrib.h"
#include "install/release_index.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = cudnnup::fuzz::bytes_of(data, size);
  std::vector<cudnnup::Version> listed = cudnnup::releases_in_index_page(text);
  for (size_t i = 1; i < listed.size(); ++i) {
    if (!(listed[i] < listed[i - 1])) cudnnup::fuzz::violation("the page's releases are not newest first, each once");
  }
  for (const auto& v : listed) {
    // A listed release names a manifest that the folder form recognises as the same release.
    bool named = false;
    for (const auto& file : cudnnup::redistrib_file_names(v.str())) {
      auto again = cudnnup::release_of_file_name(file);
      if (again && *again == v) named = true;
    }
    if (!named) cudnnup::fuzz::violation("release " + v.str() + " from the page has no manifest name that gives it back");
  }
  // The same bytes as one folder entry's name, and as what the user typed.
  (void)cudnnup::release_of_file_name(text);
  if (auto spec = cudnnup::parse_release_spec(text)) {
    auto chosen = cudnnup::matching_releases(*spec, listed);
    for (const auto& v : chosen) {
      if (std::find(listed.begin(), listed.end(), v) == listed.end()) cudnnup::fuzz::violation("a chosen release was not listed");
    }
    (void)cudnnup::describe_release_spec(*spec);
  }
  return 0;
}
