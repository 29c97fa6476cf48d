#include "app/commands/list_available.h"

#include <iostream>

#include "app/cli/exit_codes.h"

#if CUDNNUP_HAVE_INSTALL
#include <nlohmann/json.hpp>

#include "app/commands/install_services.h"
#include "app/commands/known_table.h"
#include "app/render/archive_render.h"
#include "base/json_text.h"
#include "facts/machines.h"
#include "install/archive_source.h"
#include "platform/system.h"
#endif

namespace cudnnup {

#if CUDNNUP_HAVE_INSTALL

namespace {

// Each listed release costs one manifest read; the newest ones are what people install.
constexpr size_t kNewestShown = 15;

bool wanted(const RedistribEntry& e, int cuda) {
  return cuda == 0 || e.cuda_variant == std::to_string(cuda) || e.cuda_variant.rfind(std::to_string(cuda) + ".", 0) == 0;
}

}  // namespace

int run_list_available(AppContext& ctx, const AvailableOptions& options) {
  std::string mirror = !options.mirror.empty() ? options.mirror : ctx.env.get("CUDNNUP_MIRROR").value_or("");
  std::string platform = archive_platform_key_for(host_machine(), ctx.env.windows());
  auto progress = progress_for(ctx);
  auto http = http_client(progress ? progress->get() : nullptr);
  auto known = known_archives_for(ctx);
  if (!known) return report_error(ctx, known.error());
  auto found = available_releases(*ctx.fs, mirror, platform, *known, http, options.all ? 0 : kNewestShown);
  if (!found) return report_error(ctx, found.error());
  if (ctx.options.json) {
    nlohmann::ordered_json releases = nlohmann::ordered_json::array();
    for (const auto& r : found->releases) {
      nlohmann::ordered_json archives = nlohmann::ordered_json::array();
      for (const auto& e : r.archives) {
        if (!wanted(e, options.cuda)) continue;
        archives.push_back({{"cuda_variant", e.cuda_variant}, {"version", e.version},
                            {"relative_path", e.relative_path.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(e.relative_path)},
                            {"size", e.size}, {"sha256", e.sha256.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(e.sha256)}});
      }
      releases.push_back({{"release", r.release}, {"date", r.date.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.date)},
                          {"archives", archives},
                          {"problem", r.problem.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.problem)}});
    }
    nlohmann::ordered_json out = {{"schema", "cudnnup.list/1"},
                                  {"kind", "available"},
                                  {"mirror", found->mirror},
                                  {"platform", platform},
                                  {"listed_by", found->listed_by},
                                  {"note", found->note.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(found->note)},
                                  {"cuda_filter", options.cuda ? nlohmann::ordered_json(options.cuda) : nlohmann::ordered_json()},
                                  {"releases", releases},
                                  {"not_shown", found->not_shown},
                                  {"exit_code", kExitOk}};
    std::cout << dump_json(out, 2) << std::endl;
    return kExitOk;
  }
  if (!found->note.empty()) std::cerr << "cudnnup: " << found->note << std::endl;
  std::cout << (found->listed_by == "mirror" ? "cuDNN releases on " + found->mirror
                                              : "cuDNN releases in cudnnup's table of NVIDIA archives (the mirror's list could not be read)")
            << " for " << platform
            << (options.cuda ? " and CUDA " + std::to_string(options.cuda) : std::string()) << ":\n";
  size_t shown = 0;
  for (const auto& r : found->releases) {
    std::string builds;
    for (const auto& e : r.archives) {
      if (!wanted(e, options.cuda)) continue;
      builds += (builds.empty() ? "" : ", ") + std::string("CUDA ") + e.cuda_variant + (e.size ? " (" + human_bytes(e.size) + ")" : "");
    }
    if (!r.problem.empty()) builds = "manifest unreadable: " + r.problem;
    else if (builds.empty()) continue;  // nothing for this platform or CUDA major
    ++shown;
    std::cout << "  " << r.release << (r.date.empty() ? "" : "  " + r.date) << "  " << builds << "\n";
  }
  if (!shown) std::cout << "  (none)\n";
  if (found->not_shown) std::cout << found->not_shown << " older releases are not shown; --all lists them.\n";
  std::cout << "Install one with `cudnnup install RELEASE --cuda N`; `cudnnup install 9` takes the newest 9.x.\n";
  return kExitOk;
}

#else

int run_list_available(AppContext& ctx, const AvailableOptions&) {
  return report_error(ctx, make_error(ErrorCode::kUnsupported, "list --available is not available in this build: it was built without "
                                                               "the install code (libarchive)"));
}

#endif

}  // namespace cudnnup
