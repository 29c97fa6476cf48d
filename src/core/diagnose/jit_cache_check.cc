#include "diagnose/jit_cache_check.h"

#include "base/fix.h"
#include "base/paths.h"
#include "facts/finding_ids.h"

namespace cudnnup {

namespace {

// The driver writes an `index` file and hashed folders; the first level is enough to see a run
// under another user. Five foreign entries are named, a sixth says there are more.
constexpr size_t kMaxEntriesLooked = 512;
constexpr size_t kMaxForeignNamed = 5;

bool foreign_and_closed(const FileInfo& info) {
  return info.type != FileType::kSymlink && info.other_owner && !info.self_may_write;
}

bool is_folder(const Result<FileInfo>& info) { return info && info->type == FileType::kDirectory; }

// POSIX paths only: "C:/x" or "\x" would be relative there, and a printed deletion must not
// depend on where it is pasted.
std::string absolute_posix(const std::string& path) {
  if (path.empty() || path[0] != '/') return "";
  return paths::normalize(path);
}

const char* const kWhatTheCacheIs =
    "The driver keeps the kernels it compiles at run time for this GPU there. Users report that "
    "deleting ~/.nv cured \"could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\"; files they "
    "cannot update there (root's, after a run that kept their HOME: sudo -E, an older sudo) are one "
    "plausible reason.";

Finding make_finding(const std::string& cache, std::string title, std::string detail,
                     const std::vector<std::string>& foreign) {
  Finding f;
  f.id = std::string(finding_id::kDriverJitCacheNotWritable);
  f.severity = Severity::kWarning;
  f.subject = cache;
  f.title = std::move(title);
  f.detail = std::move(detail);
  for (size_t i = 0; i < foreign.size(); ++i) {
    if (i == kMaxForeignNamed) {
      f.evidence.push_back("and more");
      break;
    }
    f.evidence.push_back(foreign[i] + ": another user's, not writable by you");
  }
  return f;
}

}  // namespace

JitCacheDir cuda_jit_cache_dir(const Environment& env) {
  if (env.windows()) return {};
  std::string disable = env.get("CUDA_CACHE_DISABLE").value_or("");
  if (!disable.empty() && disable != "0") return {};
  if (auto named = env.get("CUDA_CACHE_PATH"); named && !named->empty()) {
    std::string path = absolute_posix(*named);
    if (path.empty()) return {};
    return {path, true};
  }
  std::string home = absolute_posix(env.home);
  if (home.empty()) return {};
  return {paths::join(home, ".nv/ComputeCache"), false};
}

std::vector<Finding> check_jit_cache(const FileSystem& fs, const Environment& env) {
  if (env.superuser()) return {};
  JitCacheDir dir = cuda_jit_cache_dir(env);
  if (dir.path.empty()) return {};
  const std::string& cache = dir.path;
  auto top = fs.lstat(cache);

  if (dir.user_named) {
    // Only the folder itself: its other files may be anything (a shared cache, /tmp).
    if (!top || !foreign_and_closed(*top)) return {};
    Finding f = make_finding(cache, "The CUDA JIT cache " + cache + " ($CUDA_CACHE_PATH) belongs to another user, and you cannot write to it",
                             std::string(kWhatTheCacheIs) + " The folder was named by CUDA_CACHE_PATH and may hold more than the cache, "
                             "so cudnnup prints no command that changes it.", {cache});
    f.fix.push_back(fix::step("Set CUDA_CACHE_PATH to a folder of your own (or unset it, for ~/.nv/ComputeCache)"));
    return {f};
  }

  // ~/.nv is read only when something is to be said: most runs find a cache of the user's own.
  std::string nv = paths::parent(cache);
  if (!top) {
    auto nv_info = fs.lstat(nv);
    // No cache yet: the driver makes one unless ~/.nv is another user's.
    if (!is_folder(nv_info) || !foreign_and_closed(*nv_info)) return {};
    Finding f = make_finding(cache, "~/.nv (" + nv + ") belongs to another user, so the CUDA JIT cache cannot be made there",
                             kWhatTheCacheIs, {nv});
    if (env.effective_uid >= 0) {
      f.fix.push_back(fix::sudo({"chown", "--", std::to_string(env.effective_uid), nv}, "gives ~/.nv back to you"));
    } else {
      f.fix.push_back(fix::step("Give " + nv + " back to your user (sudo chown YOUR_USER " + nv + ")"));
    }
    return {f};
  }

  std::vector<std::string> foreign;
  if (foreign_and_closed(*top)) foreign.push_back(cache);
  if (top->type == FileType::kDirectory) {
    if (auto entries = fs.list_dir(cache)) {
      for (size_t i = 0; i < entries->size() && i < kMaxEntriesLooked && foreign.size() <= kMaxForeignNamed; ++i) {
        std::string path = paths::join(cache, (*entries)[i].name);
        if (auto info = fs.lstat(path); info && foreign_and_closed(*info)) foreign.push_back(path);
      }
    }
  }
  if (foreign.empty()) return {};
  Finding f = make_finding(cache, "The CUDA JIT cache " + cache + " holds files of another user, which you cannot update",
                           std::string(kWhatTheCacheIs) + " The cache holds nothing else: deleting it is safe, and the driver builds it again.",
                           foreign);
  if (is_folder(fs.lstat(nv))) {
    f.fix.push_back(fix::sudo({"rm", "-rf", "--", cache}, "only the CUDA JIT cache; the driver builds it again"));
  } else {
    // ~/.nv is a link (or not a folder): a deletion through it could reach anywhere.
    f.fix.push_back(fix::step(nv + " is not a plain folder: look where it leads before you delete the cache in it"));
  }
  return {f};
}

}  // namespace cudnnup
