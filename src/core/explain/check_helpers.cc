#include "explain/check_helpers.h"

#include "base/numbers.h"

namespace cudnnup::check_helpers {

CheckResult holds(std::string evidence) { return {Verdict::kHolds, std::move(evidence)}; }
CheckResult ruled_out(std::string evidence) { return {Verdict::kDoesNotHold, std::move(evidence)}; }
CheckResult unknown(std::string evidence) { return {Verdict::kUnknown, std::move(evidence)}; }

int var_int(const Variables& vars, const char* name) {
  auto it = vars.find(name);
  if (it == vars.end() || it->second.empty()) return 0;
  return checked_int(it->second, 0, 1000000).value_or(0);
}

Version var_version(const Variables& vars, const char* name) {
  auto it = vars.find(name);
  if (it == vars.end()) return {};
  auto v = Version::parse(it->second);
  return v ? *v : Version{};
}

std::string var(const Variables& vars, const char* name) {
  auto it = vars.find(name);
  return it == vars.end() ? std::string() : it->second;
}

Version copy_version(const CudnnCopy& c) { return c.library_version.known() ? c.library_version : c.header_version; }

std::string describe(const CudnnCopy& c) {
  Version v = copy_version(c);
  std::string via;
  for (const auto& w : c.found_via) via += (via.empty() ? "" : ", ") + w;
  return "cuDNN " + (v.known() ? v.str() : std::string(std::to_string(c.major()) + ".x")) + " in " + c.lib_dir +
         (via.empty() ? std::string() : " (found via " + via + ")");
}

std::string list_copies(const std::vector<const CudnnCopy*>& copies, size_t max) {
  std::string out;
  for (size_t i = 0; i < copies.size() && i < max; ++i) out += (i ? "; " : "") + describe(*copies[i]);
  if (copies.size() > max) out += "; and " + std::to_string(copies.size() - max) + " more";
  return out;
}

// The major the message is about: from the library name or the version it names; 0 = unknown.
int wanted_major(const Variables& vars) {
  if (int m = var_int(vars, "major")) return m;
  if (Version r = var_version(vars, "required"); r.known()) return r.major();
  return 0;
}

std::vector<const CudnnCopy*> copies_of(const Report& r, int major) {
  std::vector<const CudnnCopy*> out;
  for (const auto& c : r.copies) {
    if (major == 0 || c.major() == major) out.push_back(&c);
  }
  return out;
}

std::string all_copies_sentence(const Report& r) {
  std::vector<const CudnnCopy*> all = copies_of(r, 0);
  if (all.empty()) return "no cuDNN copy was found in the " + std::to_string(r.searched_dirs.size()) + " directories searched";
  return "copies here: " + list_copies(all);
}

bool via_env_list(const CudnnCopy& c) {
  for (const auto& w : c.found_via) {
    if (w == "LD_LIBRARY_PATH" || w == "PATH") return true;
  }
  return false;
}

const CudnnLibrary* find_component(const CudnnCopy& c, const std::string& component) {
  for (const auto& lib : c.libraries) {
    if (lib.component == component) return &lib;
  }
  return nullptr;
}

bool finding_about(const Report& r, const CudnnCopy& c, std::string_view id) {
  for (const auto& f : r.findings) {
    if (f.id == id && (f.subject == c.lib_dir || f.subject == c.root)) return true;
  }
  return false;
}

// A doctor finding with this id about a copy of `major` (0 = any), or about no copy in particular.
const Finding* finding_for_major(const Report& r, std::string_view id, int major) {
  for (const auto& f : r.findings) {
    if (f.id != id) continue;
    if (major == 0) return &f;
    for (const auto& c : r.copies) {
      if ((f.subject == c.lib_dir || f.subject == c.root) && c.major() == major) return &f;
    }
  }
  return nullptr;
}

std::string same_minor(const Version& v) { return v.truncated(2).str(); }
bool older_minor(const Version& have, const Version& need) {
  return have.major() == need.major() && have.truncated(2) < need.truncated(2);
}

}  // namespace cudnnup::check_helpers
