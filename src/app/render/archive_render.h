// Shared by archive-info and install: what an archive is (name, contents, hash) and whether it
// suits this machine, as JSON and as text for people.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "install/archive_scan.h"
#include "app/render/style.h"
#include "facts/known_archives.h"
#include "base/model.h"

namespace cudnnup {

struct SuitabilityCheck {
  std::string id;       // "platform", "architecture", "toolkit", "driver", "gpu"
  std::string status;   // "ok", "warning", "error", "unknown"
  std::string message;
};

// Does the archive suit this machine? `report` is the doctor's picture (toolkits, driver, GPUs);
// `toolkit_root` narrows the toolkit check to one (e.g. --into / --cuda-dir).
std::vector<SuitabilityCheck> check_suitability(const ArchiveName& identity, const ContentReport& contents, bool host_windows,
                                                const Report* report, const std::string& toolkit_root);

nlohmann::json archive_identity_json(const std::optional<ArchiveName>& name, const std::string& path, uint64_t size,
                                     const std::string& sha256);
nlohmann::json contents_json(const ScanResult& scan);
nlohmann::json known_json(const KnownCheck& known);
nlohmann::json suitability_json(const std::vector<SuitabilityCheck>& checks);

std::string human_bytes(uint64_t n);

}  // namespace cudnnup
