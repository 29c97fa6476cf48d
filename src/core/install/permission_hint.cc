#include "install/permission_hint.h"

#include "base/paths.h"

namespace cudnnup {
namespace {

// Text inside a PowerShell single-quoted string: a ' is written twice.
std::string powershell_quoted_body(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out;
}

}  // namespace

Error with_permission_hint(const Error& e, const std::string& dir, const InstallOptions& o) {
  if (e.code != ErrorCode::kPermission) return e;
  std::string msg = "cannot write to " + dir + " (" + e.message + "). Nothing was changed. ";
  if (o.into && o.windows) {
    std::string archive = paths::to_native(o.archive, true), into = paths::to_native(*o.into, true);
    msg += "Changing " + into + " needs administrator rights. Run the same install elevated from PowerShell:\n"
           "  Start-Process cudnnup -Verb RunAs -Wait -ArgumentList 'install \"" + powershell_quoted_body(archive) + "\" --into \"" +
           powershell_quoted_body(into) + "\"'\n"
           "(or open \"Terminal (Admin)\" and run the install there), or install into your own store, which needs no "
           "administrator rights: `cudnnup install \"" + archive + "\"` and select it with `cudnnup use`.";
  } else if (o.into) {
    msg += "Run it with the rights to change that toolkit: `sudo cudnnup install " + o.archive + " --into " + *o.into +
           "`, or install into your own store without sudo: `cudnnup install " + o.archive + "` and select it with `cudnnup use`.";
  } else {
    msg += "Point the store at a writable directory with CUDNNUP_HOME=DIR, or fix the ownership of " + dir + ".";
  }
  return make_error(ErrorCode::kPermission, msg, dir);
}

}  // namespace cudnnup
