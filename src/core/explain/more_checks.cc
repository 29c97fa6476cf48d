#include "explain/more_checks.h"

#include <algorithm>

#include "base/paths.h"
#include "explain/check_helpers.h"
#include "facts/cudnn_files.h"
#include "facts/finding_ids.h"
#include "facts/rules.h"

namespace cudnnup::more_checks {
namespace {

using namespace check_helpers;

bool newer_than(const Version& have, const Version& built) {
  return have.major() > built.major() || (have.major() == built.major() && built.truncated(2) < have.truncated(2));
}

// Doctor findings that say a copy is unusable as it is.
constexpr std::string_view kBrokenFindings[] = {finding_id::kCudnnLoadFailed, finding_id::kCudnnLoadCrashed,
                                                finding_id::kCudnnLibraryDamaged, finding_id::kCudnnDanglingLink,
                                                finding_id::kCudnnMixedSublibraryVersions,
                                                finding_id::kCudnnHeaderLibraryMismatch, finding_id::kCudnnSublibraryMissing};

}  // namespace

// Old TensorFlow needs the runtime's major.minor to equal the build's ("compatibility version");
// Caffe2 refuses another major. A newer copy wins the search: usually a second installation.
CheckResult cudnn_newer_than_built(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  Version built = var_version(vars, "required");
  if (!built.known()) return unknown("The message does not say which cuDNN the program was built with.");
  std::vector<const CudnnCopy*> newer, built_like;
  for (const auto& c : r.copies) {
    Version v = copy_version(c);
    if (!v.known()) continue;
    if (newer_than(v, built)) newer.push_back(&c);
    else if (v.truncated(2) == built.truncated(2)) built_like.push_back(&c);
  }
  if (newer.empty()) return ruled_out("No cuDNN newer than " + same_minor(built) + " here; " + all_copies_sentence(r) + ".");
  bool reached = std::any_of(newer.begin(), newer.end(), [&m](const CudnnCopy* c) { return copy_on_search_path(*c, m); });
  std::string also = built_like.empty() ? std::string()
                                        : "; the build's " + same_minor(built) + " is here too: " + list_copies(built_like);
  return holds("Newer than the " + same_minor(built) + " the program was built with" +
               (reached ? " and on the search path: " : ": ") + list_copies(newer) + also + ".");
}

// A cuDNN that is found but does not work: doctor's load probe failed or crashed, or a library
// is damaged, missing or of another version than its siblings.
CheckResult cudnn_install_broken(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  int major = wanted_major(vars);
  for (std::string_view id : kBrokenFindings) {
    if (const Finding* f = finding_for_major(r, id, major)) return holds(f->title + ".");
  }
  auto copies = copies_of(r, major);
  if (copies.empty()) return unknown("No cuDNN copy here to judge: " + all_copies_sentence(r) + ".");
  for (const auto* c : copies) {
    if (c->probe.attempted && !c->probe.loaded) return holds(describe(*c) + " does not load: " + c->probe.failure + ".");
  }
  for (const auto* c : copies) {
    if (c->probe.loaded && copy_on_search_path(*c, m)) {
      return ruled_out(describe(*c) + " loads and reports version " + c->probe.version.str() + " here.");
    }
  }
  return unknown("doctor found nothing wrong with " + list_copies(copies) +
                 "; a copy that is complete on disk can still fail to create a handle (run `cudnnup verify`).");
}

// A program built with a CUDA older than the GPU's architecture has no native code for it; it runs
// only from an older architecture's cubin of the same major or from PTX, when it carries them.
CheckResult cuda_build_predates_gpu(const MachineView& m, const Variables& vars, const CheckParams&) {
  const Report& r = *m.report;
  if (r.driver.gpus.empty()) return unknown("No GPU information here.");
  Version newest;
  std::string what;
  for (const auto& tk : r.toolkits) {
    if (newest < tk.version) {
      newest = tk.version;
      what = "CUDA " + tk.version.truncated(2).str() + " at " + tk.root;
    }
  }
  if (int cuda = var_int(vars, "cuda_major"); !newest.known() && cuda) {
    newest = Version{cuda, 99};
    what = "the CUDA " + std::to_string(cuda) + " build the message names";
  }
  if (!newest.known()) return unknown("The CUDA the program was built with is not known here (no toolkit found).");
  for (const auto& g : r.driver.gpus) {
    if (!g.compute_capability.known()) continue;
    const FirstCudaForArchitecture* first = builtin_rules().first_cuda_for(g.compute_capability);
    if (first && newest.truncated(2) < first->cuda.truncated(2)) {
      return holds(g.name + " (compute capability " + g.compute_capability.str() + ") needs CUDA " + first->cuda.str() +
                   " or newer for native code; the newest here is " + what + " (" + first->source.substr(0, first->source.find(' ')) + ").");
    }
  }
  return ruled_out(what + " builds native code for every GPU here.");
}

// TensorFlow 0.x and Lua Torch dlopen the unversioned libcudnn.so, which only the development
// package (or a symlink) provides; the runtime package has libcudnn.so.N alone.
CheckResult cudnn_unversioned_symlink_missing(const MachineView& m, const Variables&, const CheckParams&) {
  const Report& r = *m.report;
  std::vector<const CudnnCopy*> on;
  for (const auto& c : r.copies) {
    if (copy_on_search_path(c, m)) on.push_back(&c);
  }
  if (on.empty()) return unknown("No cuDNN copy on the search path: " + all_copies_sentence(r) + ".");
  for (const auto* c : on) {
    for (const auto& lib : c->libraries) {
      auto name = parse_cudnn_file_name(paths::basename(lib.path));
      if (name && name->shim() && name->major == 0 && !name->windows && !lib.dangling) return ruled_out(lib.path + " is there.");
    }
  }
  return holds("The copies on the search path have only versioned names (" + list_copies(on) + "); no libcudnn.so link.");
}

// Python's glob reads [ and ] as a character class, so a Windows install under a folder named
// with brackets hides torch's DLLs from the loader it preloads them with.
CheckResult install_path_special_chars(const MachineView& m, const Variables&, const CheckParams&) {
  const Report& r = *m.report;
  if (r.os != "windows") return ruled_out("Only the Windows DLL preloading trips over brackets in a path; this is " + r.os + ".");
  for (const auto& c : r.copies) {
    if (c.lib_dir.find_first_of("[]") != std::string::npos) return holds(describe(c) + ": the path has [ or ].");
  }
  return ruled_out("No cuDNN copy here lies under a path with [ or ].");
}

// The CUDA JIT cache (~/.nv/ComputeCache) with files the user cannot update: doctor's
// driver.jit_cache_not_writable. A damaged cache of the user's own cannot be seen from outside, so
// without that finding the cause stays possible (deleting the cache costs one slower start).
CheckResult cuda_jit_cache_unusable(const MachineView& m, const Variables&, const CheckParams&) {
  const Report& r = *m.report;
  for (const auto& f : r.findings) {
    if (f.id == finding_id::kDriverJitCacheNotWritable) return holds(f.title + ".");
  }
  if (r.os == "windows") return unknown("doctor does not judge the CUDA JIT cache on Windows (%APPDATA%/NVIDIA/ComputeCache).");
  return unknown("doctor found no file of another user in the CUDA JIT cache; a damaged cache cannot be seen from outside.");
}

}  // namespace cudnnup::more_checks
