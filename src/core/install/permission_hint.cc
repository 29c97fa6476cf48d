#include "install/permission_hint.h"

#include "base/paths.h"
#include "facts/install_fix.h"

namespace cudnnup {

Error with_permission_hint(const Error& e, const std::string& dir, const InstallOptions& o) {
  if (e.code != ErrorCode::kPermission) return e;
  std::string msg = "cannot write to " + paths::to_native(dir, o.windows) + " (" + e.message + "). Nothing was changed. ";
  if (!o.into) {
    msg += "Point the store at a writable directory with CUDNNUP_HOME=DIR, or fix the ownership of " + paths::to_native(dir, o.windows) + ".";
    return make_error(ErrorCode::kPermission, msg, dir);
  }
  // Absolute paths: an elevated process starts in System32, not here.
  std::string archive = paths::to_native(o.archive, o.windows), into = paths::to_native(*o.into, o.windows);
  msg += o.windows ? "Changing " + into + " needs administrator rights: run the same install elevated, or install into your "
                     "own store, which needs none, and select it with `cudnnup use`:"
                   : "Run it with the rights to change that toolkit, or install into your own store without sudo and select "
                     "it with `cudnnup use`:";
  std::vector<FixStep> fix = elevated_cudnnup_steps({"install", archive, "--into", into}, o.windows);
  fix.push_back(fix::step("or into your own store:"));
  fix.push_back(fix::cudnnup({"install", archive}));
  return with_fix(make_error(ErrorCode::kPermission, msg, dir), std::move(fix));
}

}  // namespace cudnnup
