#include "store/version_spec.h"
#include "base/numbers.h"
#include "base/strings.h"

#include <algorithm>

namespace cudnnup {
namespace {

// "cuda12" -> 12
std::optional<int> parse_cuda_suffix(std::string_view s) {
  if (s.substr(0, 4) != "cuda") return std::nullopt;
  s.remove_prefix(4);
  if (s.size() > 3) return std::nullopt;
  return checked_int(s, 1, 999);
}

}  // namespace

std::optional<StoreVersionId> StoreVersionId::parse(std::string_view name) {
  size_t plus = name.find('+');
  if (plus == std::string_view::npos) return std::nullopt;
  auto version = Version::parse(name.substr(0, plus));
  auto cuda = parse_cuda_suffix(name.substr(plus + 1));
  if (!version || !cuda) return std::nullopt;
  return StoreVersionId{*version, *cuda, std::string(name)};
}

bool StoreVersionId::better_than(const StoreVersionId& other) const {
  auto order = version <=> other.version;
  if (order != 0) return order > 0;
  if (cuda_major != other.cuda_major) return cuda_major > other.cuda_major;
  return id > other.id;  // only for a stable order of "9.1+cuda12" vs "9.1.0+cuda12"
}

Result<VersionSpec> VersionSpec::parse(std::string_view raw) {
  std::string_view text = trim(raw);
  VersionSpec spec;
  spec.text = std::string(text);
  auto bad = [&] {
    return make_error(ErrorCode::kUsage,
                      "'" + std::string(raw) +
                          "' is not a cuDNN version spec; write a version or its start (9, 9.1, 9.1.0.70), "
                          "optionally with a CUDA major (9.1+cuda12), or just +cuda12");
  };
  if (text.empty()) return bad();
  size_t plus = text.find('+');
  std::string_view version_part = text.substr(0, plus);
  if (plus != std::string_view::npos) {
    auto cuda = parse_cuda_suffix(text.substr(plus + 1));
    if (!cuda) return bad();
    spec.cuda_major = *cuda;
  }
  if (!version_part.empty()) {
    auto version = Version::parse(version_part);
    if (!version || version->parts.size() > 4) return bad();
    spec.prefix = *version;
  } else if (!spec.cuda_major) {
    return bad();
  }
  return spec;
}

bool VersionSpec::matches(const StoreVersionId& id) const {
  if (cuda_major && *cuda_major != id.cuda_major) return false;
  return !prefix.known() || id.version.has_prefix(prefix);
}

Result<std::vector<StoreVersionId>> list_installed(const FileSystem& fs, const StoreLayout& layout) {
  std::vector<StoreVersionId> out;
  if (!fs.exists(layout.versions_dir())) return out;
  auto entries = fs.list_dir(layout.versions_dir());
  if (!entries) return entries.error();
  for (const auto& entry : *entries) {
    if (entry.type != FileType::kDirectory) continue;
    if (auto id = StoreVersionId::parse(entry.name)) out.push_back(*id);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.better_than(b); });
  return out;
}

Result<StoreVersionId> find_installed(const FileSystem& fs, const StoreLayout& layout, std::string_view arg, bool windows) {
  std::string name(trim(arg));
  auto is_sep = [&](char c) { return c == '/' || (windows && c == '\\'); };
  while (name.size() > 1 && is_sep(name.back())) name.pop_back();
  while (name.size() > 2 && name[0] == '.' && is_sep(name[1])) name.erase(0, 2);
  auto not_a_name = [&](const std::string& why) {
    return make_error(ErrorCode::kUsage, "'" + std::string(arg) + "' " + why +
                                             "; name an installed version as `cudnnup list` shows it, e.g. 9.19.0.56+cuda13");
  };
  if (name.empty() || std::any_of(name.begin(), name.end(), is_sep) || name.find('\\') != std::string::npos) {
    return not_a_name("is a path, not a version name");
  }
  auto installed = list_installed(fs, layout);
  if (!installed) return installed.error();
  auto same = [&](const std::string& a, const std::string& b) { return windows ? iequals(a, b) : a == b; };
  for (const auto& id : *installed) {
    if (same(id.id, name)) return id;
  }
  if (auto entries = fs.list_dir(layout.versions_dir())) {
    for (const auto& e : *entries) {
      if (same(e.name, name) && e.type != FileType::kDirectory) {
        return not_a_name("is " + std::string(e.type == FileType::kSymlink ? "a link" : "not a directory") + " in " +
                          layout.versions_dir() + ", not an installed version (cudnnup does not follow it)");
      }
    }
  }
  auto spec = VersionSpec::parse(name);
  if (!spec) return not_a_name("is not an installed version or a version spec");
  std::vector<StoreVersionId> matches;
  for (const auto& id : *installed) {
    if (spec->matches(id)) matches.push_back(id);
  }
  if (matches.size() > 1) {
    return make_error(ErrorCode::kUsage, "'" + std::string(arg) + "' matches several installed versions (" +
                                             describe_installed(matches) + "); name one of them exactly");
  }
  if (matches.empty()) {
    return make_error(ErrorCode::kNotFound, "cuDNN " + name + " is not installed in the store (installed: " +
                                                describe_installed(*installed) + "); `cudnnup list` shows what is");
  }
  return matches.front();
}

std::string describe_installed(const std::vector<StoreVersionId>& installed) {
  if (installed.empty()) return "nothing";
  std::string out;
  for (const auto& id : installed) out += (out.empty() ? "" : ", ") + id.id;
  return out;
}

namespace {

// `cudnnup install` of what the spec names, when it names a version and its CUDA major (a printed
// install names its build: tests/support/fix_check.h); nothing otherwise.
std::vector<FixStep> install_of(const VersionSpec& spec) {
  if (spec.prefix.parts.empty() || !spec.cuda_major) return {};
  return {fix::cudnnup({"install", spec.prefix.str(), "--cuda", std::to_string(*spec.cuda_major)})};
}

}  // namespace

Result<StoreVersionId> resolve_spec(const VersionSpec& spec, const std::vector<StoreVersionId>& installed) {
  for (const auto& id : installed) {  // best first, so the first match is the best one
    if (spec.matches(id)) return id;
  }
  std::vector<FixStep> install = install_of(spec);
  std::string how = install.empty() ? "install it with `cudnnup install` (a release and the --cuda major it is built for)"
                                    : "install it:";
  if (installed.empty()) {
    return with_fix(make_error(ErrorCode::kNotFound, "cuDNN " + spec.text + " is not installed, and no cuDNN is installed in the "
                                                                          "store yet; " + how),
                    install);
  }
  return with_fix(make_error(ErrorCode::kNotFound, "no installed cuDNN matches '" + spec.text + "' (installed: " +
                                                       describe_installed(installed) + "); pick one of those, or " + how),
                  install);
}

}  // namespace cudnnup
