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

std::optional<Version> release_of_file_name(std::string_view name) {
  // Bounded digits: a hostile name cannot make a number overflow or the regex run long.
  static const std::regex whole(R"(^redistrib_(\d{1,4}(?:\.\d{1,4}){1,3})\.json$)");
  std::string text(name);
  std::smatch m;
  if (!std::regex_match(text, m, whole)) return std::nullopt;
  return Version::parse(m[1].str());
}

std::vector<Version> newest_first(std::vector<Version> releases) {
  // 9.1.0 and 9.1.0.0 compare equal, so the first spelling seen is kept.
  std::stable_sort(releases.begin(), releases.end(), [](const Version& a, const Version& b) { return b < a; });
  releases.erase(std::unique(releases.begin(), releases.end()), releases.end());
  return releases;
}

std::vector<Version> releases_in_index_page(std::string_view page) {
  // Only link targets count, by their last component: text beside a link, or a name inside
  // another ("redistrib_9.2.0.json.bak"), is not a release.
  static const std::regex href(R"(href\s{0,8}=\s{0,8}["']([^"'<>]{1,512})["'])", std::regex::icase);
  std::vector<Version> out;
  std::string text(page);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), href); it != std::sregex_iterator(); ++it) {
    std::string target = (*it)[1].str();
    target = target.substr(0, target.find_first_of("?#"));
    if (auto v = release_of_file_name(target.substr(target.rfind('/') + 1))) out.push_back(*v);
  }
  return newest_first(std::move(out));
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
