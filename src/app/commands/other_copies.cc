#include "app/commands/other_copies.h"

#include "app/commands/doctor_runner.h"
#include "base/paths.h"

namespace cudnnup {
namespace {

bool inside(const std::string& path, const std::string& dir) {
  std::string p = paths::normalize(path), d = paths::normalize(dir);
  return p == d || p.compare(0, d.size() + 1, d + "/") == 0;
}

}  // namespace

Result<std::vector<UnmanagedCopy>> find_unmanaged_copies(AppContext& ctx, const StoreLayout& layout) {
  auto report = collect_report(ctx);
  if (!report) return report.error();
  std::string store_root = ctx.fs->canonical(layout.root).value_or(layout.root);
  std::vector<UnmanagedCopy> out;
  for (const auto& copy : report->copies) {
    if (copy.form == PackageForm::kStore) continue;
    if (inside(copy.root, layout.root) || inside(copy.root, store_root) || inside(copy.lib_dir, store_root)) continue;
    Version v = copy.library_version.known() ? copy.library_version : copy.header_version;
    out.push_back({copy.root, copy.lib_dir, v.known() ? v.str() : "", package_form_name(copy.form)});
  }
  return out;
}

}  // namespace cudnnup
