#include "diagnose/jit_cache_check.h"

#include "base/fix.h"
#include "base/paths.h"
#include "facts/finding_ids.h"

namespace cudnnup {

namespace {

// The driver writes an `index` file and a few hundred two-level hashed folders; the first level
// is enough to see a run under another user, and bounds the reading on a huge cache.
constexpr size_t kMaxEntriesLooked = 512;

bool foreign_and_closed(const FileInfo& info) {
  return info.type != FileType::kSymlink && info.other_owner && !info.others_may_write;
}

}  // namespace

std::string cuda_jit_cache_dir(const Environment& env) {
  if (env.windows()) return "";
  if (env.get("CUDA_CACHE_DISABLE").value_or("") == "1") return "";
  if (auto custom = env.get("CUDA_CACHE_PATH"); custom && paths::is_absolute(*custom)) return *custom;
  if (env.home.empty() || !paths::is_absolute(env.home)) return "";
  return paths::join(env.home, ".nv/ComputeCache");
}

std::vector<Finding> check_jit_cache(const FileSystem& fs, const Environment& env) {
  if (env.superuser) return {};
  std::string cache = cuda_jit_cache_dir(env);
  if (cache.empty()) return {};
  bool custom = env.get("CUDA_CACHE_PATH").has_value() && cache == *env.get("CUDA_CACHE_PATH");

  std::vector<std::string> foreign;
  if (!custom) {
    std::string nv = paths::join(env.home, ".nv");
    if (auto info = fs.lstat(nv); info && foreign_and_closed(*info)) foreign.push_back(nv);
  }
  auto top = fs.lstat(cache);
  if (!top) {
    if (foreign.empty()) return {};  // no cache yet, and the driver may make one
  } else {
    if (foreign_and_closed(*top)) foreign.push_back(cache);
    if (top->type == FileType::kDirectory) {
      if (auto entries = fs.list_dir(cache)) {
        size_t looked = 0;
        for (const DirEntry& e : *entries) {
          if (++looked > kMaxEntriesLooked) break;
          std::string path = paths::join(cache, e.name);
          if (auto info = fs.lstat(path); info && foreign_and_closed(*info)) foreign.push_back(path);
        }
      }
    }
  }
  if (foreign.empty()) return {};

  Finding f;
  f.id = std::string(finding_id::kDriverJitCacheNotWritable);
  f.severity = Severity::kWarning;
  f.subject = cache;
  f.title = "The CUDA JIT cache " + cache + " holds files of another user, which you cannot update";
  f.detail =
      "The driver keeps the kernels it compiles at run time for this GPU there. Files of another user "
      "(root, after a run with sudo) that only their owner may write stop your programs from updating "
      "the cache; frameworks then report \"could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\". "
      "The cache holds nothing else: deleting it is safe, and the driver builds it again.";
  size_t shown = 0;
  for (const std::string& p : foreign) {
    if (++shown > 5) {
      f.evidence.push_back("and " + std::to_string(foreign.size() - 5) + " more");
      break;
    }
    f.evidence.push_back(p + ": another user's, writable by its owner only");
  }
  if (custom) {
    // A path the user chose may hold more than the cache: never print a deletion of it.
    f.fix.push_back(fix::step("Give " + cache + " back to your user (sudo chown -R YOUR_USER " + cache +
                              "), or set CUDA_CACHE_PATH to a directory of your own"));
  } else {
    f.fix.push_back(fix::sudo({"rm", "-rf", "--", paths::join(env.home, ".nv/ComputeCache")},
                              "only the CUDA JIT cache; the driver builds it again"));
    if (auto nv = paths::join(env.home, ".nv"); !foreign.empty() && foreign.front() == nv) {
      if (auto user = env.get("USER"); user && !user->empty()) {
        f.fix.push_back(fix::sudo({"chown", "--", *user, nv}, "~/.nv itself is another user's"));
      } else {
        f.fix.push_back(fix::step("Give " + nv + " back to your user: sudo chown YOUR_USER " + nv));
      }
    }
  }
  return {f};
}

}  // namespace cudnnup
