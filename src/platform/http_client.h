// Downloads over http(s): WinHTTP on Windows (platform/http_client_win32.cc), libcurl on Linux
// (adapters/http_client_curl.cc, an adapter since Linux has no system HTTP API); the build picks one.
// What they fetch: small text files (redistrib manifests) and resumable
// archive downloads into a ".part" file, reporting progress (base/progress.h) when asked.
#pragma once

#include <cstdint>
#include <string>

#include "base/progress.h"
#include "base/result.h"

namespace cudnnup {

struct DownloadOptions {
  Progress* progress = nullptr;   // nullptr: nothing shown
  uint64_t expected_size = 0;     // 0: unknown
  long connect_timeout_s = 20;
  long stall_timeout_s = 60;      // give up when less than 1 byte/s arrives for this long
  std::string label;              // shown next to the bar
};

// GETs a URL into memory (at most max_bytes). kNotFound for HTTP 404.
Result<std::string> http_get_text(const std::string& url, size_t max_bytes = 16 << 20);

// Downloads `url` into `part_path`, continuing a previous partial download when the file exists
// and the server honours ranges (otherwise it starts over). The caller checks size and sha256
// and renames the file into place.
Status http_download(const std::string& url, const std::string& part_path, const DownloadOptions& options);

}  // namespace cudnnup
