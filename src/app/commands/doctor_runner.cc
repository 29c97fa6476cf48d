#include "app/commands/doctor_runner.h"

#include <chrono>
#include <optional>
#include <system_error>

#include "app/child/child_prober.h"
#include "app/child/child_runner.h"
#include "app/commands/store_access.h"
#include "base/caching_filesystem.h"
#include "diagnose/cached_prober.h"
#include "diagnose/doctor.h"
#include "platform/helper_thread.h"
#include "platform/process.h"
#include "platform/sha256.h"

namespace cudnnup {

Result<Rules> load_rules(const AppContext& ctx) {
  if (ctx.options.db_path.empty()) return builtin_rules();
  auto text = ctx.fs->read_stream(ctx.options.db_path, 16 << 20);
  if (!text) {
    return make_error(text.error().code, "cannot read the rules file given with --db: " + text.error().message,
                      ctx.options.db_path);
  }
  return parse_rules(*text, ctx.options.db_path);
}

namespace {

// What every cached probe answer depends on besides the copy's own files: cudnnup, which reads
// the answer, the program that probes, and the loader's system-wide files (an /etc/ld.so.preload
// that appears is loaded into every probe). nullopt where a file cannot be identified (Windows):
// nothing is cached there.
std::optional<std::vector<FileIdentity>> probe_context(const FileSystem& fs) {
  std::vector<FileIdentity> out;
  const std::string self = self_executable_path();
  for (const auto& [path, follow] : {std::pair{self, true}, std::pair{child_program(fs, self), true},
                                     std::pair{std::string("/etc/ld.so.cache"), true},
                                     std::pair{std::string("/etc/ld.so.preload"), true}}) {
    auto id = identify(fs, path, follow);
    if (!id) return std::nullopt;
    out.push_back(std::move(*id));
  }
  return out;
}

// The inherited variables that change how the probe child loads and what cuDNN answers: the
// loader's own (LD_BIND_NOW, LD_ASSUME_KERNEL, ...; LD_PRELOAD, LD_AUDIT and LD_LIBRARY_PATH are
// replaced for the child but kept here, harmlessly), glibc's tunables, and cuDNN's and CUDA's.
std::string probe_setting(const Environment& env) {
  std::string out;
  for (const auto& [name, value] : env.vars) {  // a std::map: sorted
    for (const char* prefix : {"LD_", "GLIBC_", "CUDNN_", "CUDA_", "NVIDIA_"}) {
      if (name.starts_with(prefix)) {
        out += name + "=" + value + "\n";
        break;
      }
    }
  }
  return out;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Result<DoctorOutcome> collect_outcome(AppContext& ctx, bool deep, const std::string& for_target, bool fresh) {
  // The built-in rules are parsed beside doctor, on the helper thread, while doctor starts
  // discovering the machine (~0.7 ms). The loader models ask for the built-in table and the checks
  // read the rules given: both come after the first ~2 ms of discovery, so they find the table
  // parsed (builtin_rules() waits for the rest of a parse in progress). Where no helper thread can
  // be started, the first of them parses it. A --db file is read first, so that a bad one stops
  // doctor before it starts.
  std::optional<Rules> db_rules;
  if (!ctx.options.db_path.empty()) {
    auto loaded = load_rules(ctx);
    if (!loaded) return loaded.error();
    db_rules = std::move(*loaded);
  }
  try {
    // Refers to nothing of this function's: it may still run when doctor has returned.
    run_beside([] {
      try {
        (void)builtin_rules();
      } catch (...) {  // the thread that asks next parses again and meets the error itself
      }
    });
  } catch (const std::system_error&) {
  }
  DoctorRules rules = db_rules ? DoctorRules(*db_rules) : DoctorRules::builtin();
  CachingFileSystem fs(static_cast<const FileSystem&>(*ctx.fs));  // doctor only reads (but for the probe cache)
  ChildProber child_prober(ctx.env);
  const std::string cache_path = probe_cache_path(ctx.env);
  auto context = cache_path.empty() ? std::nullopt : probe_context(fs);
  const int64_t started_ns = now_ns();
  ProbeCache cache(CUDNNUP_VERSION, context.value_or(std::vector<FileIdentity>{}), probe_setting(ctx.env),
                   started_ns / 1'000'000'000);
  // Loaded with --fresh too: its answers for copies this run does not see are kept.
  if (context) cache.load(fs, cache_path);
  CachedProber cached_prober(child_prober, cache, fs, ctx.env.windows(), utc_now_iso(), started_ns, fresh || deep);
  Prober& prober = context ? static_cast<Prober&>(cached_prober) : child_prober;
  FileHasher hasher = [&ctx](const std::string& root, const std::string& rel) { return sha256_file_below(*ctx.fs, root, rel); };
  DoctorInputs inputs{fs, ctx.env, prober, rules, deep ? &hasher : nullptr, for_target, run_beside};
  DoctorOutcome outcome = run_doctor_full(inputs);
  // A cache that cannot be written (a read-only home, another user's store) only costs the next
  // run its probes: doctor's answer does not depend on it.
  if (context && cache.changed()) (void)cache.save(*ctx.fs, cache_path);
  return outcome;
}

Result<Report> collect_report(AppContext& ctx) {
  auto outcome = collect_outcome(ctx);
  if (!outcome) return outcome.error();
  return std::move(outcome->report);
}

}  // namespace cudnnup
