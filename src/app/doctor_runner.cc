#include "app/doctor_runner.h"

#include "app/child_prober.h"
#include "core/doctor.h"

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

Result<Report> collect_report(AppContext& ctx) {
  auto rules = load_rules(ctx);
  if (!rules) return rules.error();
  ChildProber prober;
  DoctorInputs inputs{*ctx.fs, ctx.env, prober, *rules};
  return run_doctor(inputs);
}

}  // namespace cudnnup
