// The app's side of the install pipeline (core/install): the libarchive reader, SHA-256 from the
// platform, downloads, and the progress line on a terminal. Built with the install code only.
#pragma once

#include <memory>

#include "app/cli/app_context.h"
#include "app/render/progress.h"
#include "install/archive_scan.h"
#include "install/archive_source.h"

namespace cudnnup {

HasherFactory sha256_hasher();

// The progress line when the context allows it: stderr is a terminal, no -q, no --json.
// nullptr otherwise (nothing is shown).
std::unique_ptr<TerminalProgress> progress_for(const AppContext& ctx);

InstallServices install_services(Progress* progress);
HttpClient http_client(Progress* progress);

}  // namespace cudnnup
