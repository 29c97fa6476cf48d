#include "app/commands/install_locked.h"

#include <optional>

#include "base/paths.h"
#include "base/strings.h"
#include "base/version.h"
#include "discover/discovery.h"
#include "shell/fix_render.h"
#include "store/use_change.h"

namespace cudnnup {
namespace {

// install --locked of a toolkit lock: cudnnup does not pick a toolkit for the user. With one
// toolkit of the lock's CUDA major here, the merge that makes it is the error's fix; else in words.
Error toolkit_lock_refusal(const AppContext& ctx, const std::string& path, const CudnnLock& lock) {
  std::vector<std::string> matching;
  for (const auto& t : find_toolkits(*ctx.fs, ctx.env, nullptr)) {
    if (t.version.major() == lock.cuda_major) matching.push_back(t.root);
  }
  // NVIDIA's manifests are per release (redistrib_9.19.0.json): install takes three parts.
  std::string release = Version::parse(lock.cudnn_version).value_or(Version{}).truncated(3).str();
  std::string lead = path + " names the cuDNN " + lock.cudnn_version + " files of a CUDA " + lock.cuda_variant +
                     " toolkit, not a cudnnup version: ";
  if (matching.size() == 1) {
    return with_fix(make_error(ErrorCode::kUsage, lead + "merge it into that toolkit, then check:", path),
                    {fix::cudnnup({"install", release, "--cuda", lock.cuda_variant, "--into",
                                   paths::to_native(matching[0], ctx.env.windows())}),
                     fix::cudnnup({"check"})});
  }
  return make_error(ErrorCode::kUsage,
                    lead + "merge cuDNN " + release + " into the CUDA " + lock.cuda_variant +
                        " toolkit with cudnnup install and --into (" +
                        (matching.empty() ? "no such toolkit is found here" : "several are found here") +
                        "), then run `cudnnup check`",
                    path);
}

}  // namespace

Result<LockedRequest> locked_request(const AppContext& ctx, const std::string& given, const std::string& platform_key) {
  auto path = locate_lock_file(*ctx.fs, ctx.env.cwd, given);
  if (!path) return path.error();
  auto lock = read_lock_file(*ctx.fs, *path);
  if (!lock) return lock.error();
  if (lock->form == kLockFormPip) {
    return with_fix(make_error(ErrorCode::kUsage, *path + " names a pip wheel's cuDNN " + lock->cudnn_version +
                                                      ", which pip installs, not cudnnup; in the project's environment run:",
                               *path),
                    {fix::run(pip_install_argv(*lock)), fix::cudnnup({"check"})});
  }
  if (lock->form == kLockFormToolkit) return toolkit_lock_refusal(ctx, *path, *lock);
  if (lock->archive_sha256.empty()) {
    return make_error(ErrorCode::kUsage, *path + " names no archive (its copy was installed without one): "
                                                 "install --locked needs the archive's sha256", *path);
  }
  if (lock->platform != platform_key) {
    return make_error(ErrorCode::kUsage, *path + " is for " + lock->platform + ", this machine is " + platform_key, *path);
  }
  auto version = Version::parse(lock->cudnn_version);
  if (!version) return make_error(ErrorCode::kCorrupt, *path + ": field 'cudnn_version' must be a version", *path);
  return LockedRequest{*path, std::move(*lock), version->truncated(3).str()};
}

Result<std::string> finish_locked_install(AppContext& ctx, LockedStore& store, const LockedRequest& request,
                                          const std::string& installed_id) {
  const CudnnLock& lock = request.lock;
  if (installed_id != lock.id) {
    return make_error(ErrorCode::kCorrupt, "the mirror's archive installed cuDNN " + installed_id + ", the lock names " + lock.id,
                      request.lock_path);
  }
  std::string dir = store.store.layout.version_dir(lock.id);
  auto manifest = read_manifest(*ctx.fs, paths::join(dir, StoreLayout::kManifestName), dir, /*acting=*/false);
  if (!manifest) return manifest.error();
  auto differences = manifest_differences(lock, *manifest);
  if (!differences.empty()) {
    return with_fix(make_error(ErrorCode::kCorrupt, "cuDNN " + lock.id + " in " + dir + " is not the locked copy: " +
                                                        join(differences, "; ") + "; uninstall it, then install again:",
                               request.lock_path),
                    {fix::cudnnup({"uninstall", lock.id}), fix::cudnnup({"install", "--locked"})});
  }
  auto installed = list_installed(*ctx.fs, store.store.layout);
  if (!installed) return installed.error();
  store.store.installed = std::move(*installed);
  auto selected = selected_version(ctx, store.store);
  if (selected && selected->id.id == lock.id) return "selected " + selected->request.describe();
  std::string pin = paths::join(paths::parent(request.lock_path), kPinFileName);
  if (auto s = set_pin_file(*ctx.fs, store.store.layout, store.store.state, pin, lock.id, utc_now_iso()); !s) return s.error();
  return "selected by " + pin;
}

}  // namespace cudnnup
