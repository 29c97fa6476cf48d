#include "app/commands/doctor_runner.h"

#if CUDNNUP_HAVE_INSTALL
#include "platform/sha256.h"
#endif
#include "app/child/child_prober.h"
#include "base/caching_filesystem.h"
#include "diagnose/doctor.h"

namespace cudnnup {

Result<Rules> load_rules(const AppContext& ctx) {
  if (ctx.options.db_path.empty()) return builtin_rules();
  auto text = ctx.fs->read_file(ctx.options.db_path, 16 << 20);
  if (!text) {
    return make_error(text.error().code, "cannot read the rules file given with --db: " + text.error().message,
                      ctx.options.db_path);
  }
  return parse_rules(*text, ctx.options.db_path);
}

Result<DoctorOutcome> collect_outcome(AppContext& ctx, bool deep, const std::string& for_target) {
  auto rules = load_rules(ctx);
  if (!rules) return rules.error();
  ChildProber prober(ctx.env);
  CachingFileSystem fs(static_cast<const FileSystem&>(*ctx.fs));  // doctor only reads
#if CUDNNUP_HAVE_INSTALL
  FileHasher hasher = [&ctx](const std::string& root, const std::string& rel) { return sha256_file_below(*ctx.fs, root, rel); };
#else
  // No sha256 in a build without install support (CUDNNUP_WITH_INSTALL off, src/CMakeLists.txt).
  if (deep) {
    return make_error(ErrorCode::kUnsupported,
                      "doctor --deep compares sha256 sums, which this build cannot compute (built without install "
                      "support); plain `cudnnup doctor` still checks that every installed file exists with its size");
  }
  FileHasher hasher;
#endif
  DoctorInputs inputs{fs, ctx.env, prober, *rules, deep ? &hasher : nullptr, for_target};
  return run_doctor_full(inputs);
}

Result<Report> collect_report(AppContext& ctx) {
  auto outcome = collect_outcome(ctx);
  if (!outcome) return outcome.error();
  return std::move(outcome->report);
}

}  // namespace cudnnup
