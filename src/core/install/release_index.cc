#include "install/release_index.h"

#include <algorithm>
#include <regex>

namespace cudnnup {

std::optional<ReleaseSpec> parse_release_spec(std::string_view text) {
  ReleaseSpec spec;
  spec.text = std::string(text);
  if (text == "latest") return spec;
  static const std::regex shape(R"(^\d{1,4}(\.\d{1,4}){0,3}$)");
  if (!std::regex_match(spec.text, shape)) return std::nullopt;
  auto v = Version::parse(text);
  if (!v) return std::nullopt;
  spec.prefix = *v;
  spec.exact = v->parts.size() >= 3;
  return spec;
}

std::vector<Version> releases_in_listing(std::string_view listing) {
  // Bounded digits: a hostile listing cannot make a number overflow or the regex run long.
  static const std::regex name(R"(redistrib_(\d{1,4}(?:\.\d{1,4}){1,3})\.json)");
  std::vector<Version> out;
  std::string text(listing);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), name); it != std::sregex_iterator(); ++it) {
    if (auto v = Version::parse((*it)[1].str())) out.push_back(*v);
  }
  // Newest first; 9.1.0 and 9.1.0.0 compare equal, so the first spelling seen is kept.
  std::stable_sort(out.begin(), out.end(), [](const Version& a, const Version& b) { return b < a; });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<Version> matching_releases(const ReleaseSpec& spec, const std::vector<Version>& releases) {
  std::vector<Version> out;
  for (const auto& r : releases) {
    if (!spec.prefix.known() || r.has_prefix(spec.prefix)) out.push_back(r);
  }
  return out;
}

std::string describe_release_spec(const ReleaseSpec& spec) {
  if (!spec.prefix.known()) return "the newest cuDNN";
  if (spec.exact) return "cuDNN " + spec.prefix.str();
  return "the newest cuDNN " + spec.prefix.str();
}

}  // namespace cudnnup
