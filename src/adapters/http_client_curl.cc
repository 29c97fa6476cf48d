#include "platform/http_client.h"

#include <curl/curl.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>

#include "install/ca_certificates.h"
#include "platform/real_filesystem.h"
#include "platform/system.h"

namespace cudnnup {
namespace {

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
  ~CurlGlobal() { curl_global_cleanup(); }
};

struct CurlHandle {
  CurlHandle() {
    static CurlGlobal global;
    h = curl_easy_init();
  }
  ~CurlHandle() {
    if (h) curl_easy_cleanup(h);
  }
  CURL* h = nullptr;
};

struct TextSink {
  std::string data;
  size_t max = 0;
  bool overflow = false;
};

size_t write_text(char* ptr, size_t size, size_t n, void* user) {
  auto* sink = static_cast<TextSink*>(user);
  if (sink->data.size() + size * n > sink->max) {
    sink->overflow = true;
    return 0;
  }
  sink->data.append(ptr, size * n);
  return size * n;
}

struct FileSink {
  std::ofstream* out = nullptr;
  bool failed = false;
  bool restarted = false;  // the server ignored our range: start over
  CURL* h = nullptr;
  std::string part_path;
  uint64_t resume_from = 0;
  bool checked = false;
};

size_t write_file_chunk(char* ptr, size_t size, size_t n, void* user) {
  auto* sink = static_cast<FileSink*>(user);
  if (!sink->checked) {
    sink->checked = true;
    long code = 0;
    curl_easy_getinfo(sink->h, CURLINFO_RESPONSE_CODE, &code);
    if (sink->resume_from > 0 && code == 200) {
      // No range support: the body is the whole file again.
      sink->out->close();
      sink->out->open(sink->part_path, std::ios::binary | std::ios::trunc);
      sink->restarted = true;
    }
  }
  sink->out->write(ptr, static_cast<std::streamsize>(size * n));
  if (!*sink->out) {
    sink->failed = true;
    return 0;
  }
  return size * n;
}

// What curl reports, for the progress display's thread to read.
struct Counter {
  uint64_t base = 0;  // the part file's bytes before this download
  std::atomic<uint64_t> now{0};
};

int on_progress(void* user, curl_off_t, curl_off_t dlnow, curl_off_t, curl_off_t) {
  auto* c = static_cast<Counter*>(user);
  c->now.store(c->base + static_cast<uint64_t>(dlnow), std::memory_order_relaxed);
  return 0;
}

// Chosen once per process: the environment and the system's bundles do not change meanwhile.
const CaCertificates& ca_certificates() {
  static const CaCertificates ca = choose_ca_certificates(current_environment(), *make_real_filesystem());
  return ca;
}

// Both set explicitly, NULL included: the compiled-in default differs between builds (the
// portable one has none), and a CAINFO naming a missing file would fail even with a good CAPATH.
void trust_ca_certificates(CURL* h) {
  const CaCertificates& ca = ca_certificates();
  curl_easy_setopt(h, CURLOPT_CAINFO, ca.file.empty() ? nullptr : ca.file.c_str());
  curl_easy_setopt(h, CURLOPT_CAPATH, ca.dir.empty() ? nullptr : ca.dir.c_str());
}

Error curl_failure(CURLcode rc, const std::string& url, const char* errbuf) {
  std::string detail = errbuf && *errbuf ? errbuf : curl_easy_strerror(rc);
  if (rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE) {
    detail += " (" + describe_ca_certificates(ca_certificates()) + ")";
  }
  ErrorCode code = rc == CURLE_OPERATION_TIMEDOUT ? ErrorCode::kTimeout : ErrorCode::kIo;
  return make_error(code, "download of " + url + " failed: " + detail, url);
}

// Only http and https, at most 10 redirects, and never from https down to http: the archive's
// hash is checked either way, but a manifest or index fetched over https stays on https.
void limit_protocols(CURL* h, const std::string& url) {
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, url.rfind("https://", 0) == 0 ? "https" : "http,https");
}

}  // namespace

Result<std::string> http_get_text(const std::string& url, size_t max_bytes) {
  CurlHandle c;
  if (!c.h) return make_error(ErrorCode::kInternal, "libcurl could not start");
  TextSink sink;
  sink.max = max_bytes;
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c.h, CURLOPT_URL, url.c_str());
  limit_protocols(c.h, url);
  trust_ca_certificates(c.h);
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, write_text);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c.h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, 20L);
  curl_easy_setopt(c.h, CURLOPT_TIMEOUT, 120L);
  curl_easy_setopt(c.h, CURLOPT_USERAGENT, "cudnnup");
  CURLcode rc = curl_easy_perform(c.h);
  if (sink.overflow) return make_error(ErrorCode::kCorrupt, url + " is larger than " + std::to_string(max_bytes) + " bytes", url);
  if (rc != CURLE_OK) return curl_failure(rc, url, errbuf);
  long code = 0;
  curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &code);
  if (code == 404) return make_error(ErrorCode::kNotFound, url + " does not exist (HTTP 404)", url);
  if (code >= 400) return make_error(ErrorCode::kIo, url + " answered HTTP " + std::to_string(code), url);
  return sink.data;
}

Status http_download(const std::string& url, const std::string& part_path, const DownloadOptions& o) {
  CurlHandle c;
  if (!c.h) return make_error(ErrorCode::kInternal, "libcurl could not start");
  std::error_code ec;
  uint64_t have = std::filesystem::exists(part_path, ec) ? std::filesystem::file_size(part_path, ec) : 0;
  if (o.expected_size && have > o.expected_size) have = 0;  // not ours, or a different file: start over
  std::ofstream out(part_path, std::ios::binary | (have ? std::ios::app : std::ios::trunc));
  if (!out) return make_error(ErrorCode::kPermission, "cannot write " + part_path, part_path);
  if (o.expected_size && have == o.expected_size) return ok_status();  // already complete

  FileSink sink;
  sink.out = &out;
  sink.h = c.h;
  sink.part_path = part_path;
  sink.resume_from = have;
  Counter counter;
  counter.base = have;
  counter.now = have;
  ProgressPhase phase(o.progress, "downloading " + o.label, o.expected_size,
                      [&counter] { return counter.now.load(std::memory_order_relaxed); });
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c.h, CURLOPT_URL, url.c_str());
  limit_protocols(c.h, url);
  trust_ca_certificates(c.h);
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, write_file_chunk);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c.h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c.h, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, o.connect_timeout_s);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_TIME, o.stall_timeout_s);
  curl_easy_setopt(c.h, CURLOPT_USERAGENT, "cudnnup");
  if (have) curl_easy_setopt(c.h, CURLOPT_RESUME_FROM_LARGE, static_cast<curl_off_t>(have));
  if (o.progress) {
    curl_easy_setopt(c.h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c.h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c.h, CURLOPT_XFERINFODATA, &counter);
  }
  CURLcode rc = curl_easy_perform(c.h);
  out.close();
  if (sink.failed) return make_error(ErrorCode::kIo, "cannot write " + part_path + " (disk full?)", part_path);
  if (rc != CURLE_OK) {
    Error e = curl_failure(rc, url, errbuf);
    e.message += "; run the same command again to continue where it stopped";
    return e;
  }
  return ok_status();
}

}  // namespace cudnnup
