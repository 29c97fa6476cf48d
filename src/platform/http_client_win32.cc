// Downloads on Windows through WinHTTP (the OS's own HTTP stack, with the system's certificate
// store and proxy settings), so the Windows build needs neither libcurl nor OpenSSL. Same contract
// as the libcurl version on Linux (adapters/http_client.h): 404 -> kNotFound, timeouts -> kTimeout,
// resumable downloads into a ".part" file with "Range: bytes=N-", progress reported (base/progress.h).
#include <windows.h>
#include <winhttp.h>

#include <atomic>
#include <vector>

#include "platform/http_client.h"
#include "platform/win32_text.h"

namespace cudnnup {
namespace {

class Internet {
 public:
  explicit Internet(HINTERNET h = nullptr) : h_(h) {}
  ~Internet() {
    if (h_) WinHttpCloseHandle(h_);
  }
  Internet(const Internet&) = delete;
  Internet& operator=(const Internet&) = delete;
  void reset(HINTERNET h) {
    if (h_) WinHttpCloseHandle(h_);
    h_ = h;
  }
  HINTERNET get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }

 private:
  HINTERNET h_;
};

Error winhttp_error(const std::string& url, DWORD err) {
  ErrorCode code = err == ERROR_WINHTTP_TIMEOUT ? ErrorCode::kTimeout : ErrorCode::kIo;
  std::string text;
  switch (err) {  // WinHTTP's codes have no text in the system message table
    case ERROR_WINHTTP_TIMEOUT: text = "the operation timed out"; break;
    case ERROR_WINHTTP_NAME_NOT_RESOLVED: text = "the server name cannot be resolved"; break;
    case ERROR_WINHTTP_CANNOT_CONNECT: text = "cannot connect to the server"; break;
    case ERROR_WINHTTP_CONNECTION_ERROR: text = "the connection was reset"; break;
    case ERROR_WINHTTP_SECURE_FAILURE: text = "the server's TLS certificate is not trusted"; break;
    case ERROR_WINHTTP_UNRECOGNIZED_SCHEME: text = "only http:// and https:// URLs are supported"; break;
    default: text = win32::error_text(err);
  }
  return make_error(code, "download of " + url + " failed: " + text + " (WinHTTP error " + std::to_string(err) + ")", url);
}

// One GET request, with the response headers received.
struct Request {
  Internet session, connection, request;
  DWORD status = 0;
  uint64_t content_length = 0;  // 0: unknown
};

Status open_request(const std::string& url, const std::wstring& extra_headers, long connect_timeout_s, long receive_timeout_s,
                    Request& r) {
  std::wstring wurl = win32::widen(url);
  URL_COMPONENTS parts{};
  parts.dwStructSize = sizeof parts;
  parts.dwHostNameLength = DWORD(-1);
  parts.dwUrlPathLength = DWORD(-1);
  parts.dwExtraInfoLength = DWORD(-1);
  if (!WinHttpCrackUrl(wurl.c_str(), 0, 0, &parts)) return winhttp_error(url, GetLastError());
  std::wstring host(parts.lpszHostName, parts.dwHostNameLength);
  std::wstring path(parts.lpszUrlPath, parts.dwUrlPathLength);
  path.append(parts.lpszExtraInfo, parts.dwExtraInfoLength);
  if (path.empty()) path = L"/";

  r.session.reset(WinHttpOpen(L"cudnnup", WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY, WINHTTP_NO_PROXY_NAME,
                                        WINHTTP_NO_PROXY_BYPASS, 0));
  if (!r.session) {
    // WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY needs Windows 8.1; older systems (and Wine) take the default.
    r.session.reset(WinHttpOpen(L"cudnnup", WINHTTP_ACCESS_TYPE_DEFAULT_PROXY, WINHTTP_NO_PROXY_NAME,
                                          WINHTTP_NO_PROXY_BYPASS, 0));
  }
  if (!r.session) return winhttp_error(url, GetLastError());
  int connect_ms = int(connect_timeout_s * 1000), receive_ms = int(receive_timeout_s * 1000);
  WinHttpSetTimeouts(r.session.get(), connect_ms, connect_ms, receive_ms, receive_ms);
  r.connection.reset(WinHttpConnect(r.session.get(), host.c_str(), parts.nPort, 0));
  if (!r.connection) return winhttp_error(url, GetLastError());
  DWORD flags = parts.nScheme == INTERNET_SCHEME_HTTPS ? WINHTTP_FLAG_SECURE : 0;
  r.request.reset(WinHttpOpenRequest(r.connection.get(), L"GET", path.c_str(), nullptr, WINHTTP_NO_REFERER,
                                               WINHTTP_DEFAULT_ACCEPT_TYPES, flags));
  if (!r.request) return winhttp_error(url, GetLastError());
  const wchar_t* headers = extra_headers.empty() ? WINHTTP_NO_ADDITIONAL_HEADERS : extra_headers.c_str();
  DWORD headers_len = extra_headers.empty() ? 0 : DWORD(-1);
  if (!WinHttpSendRequest(r.request.get(), headers, headers_len, WINHTTP_NO_REQUEST_DATA, 0, 0, 0) ||
      !WinHttpReceiveResponse(r.request.get(), nullptr)) {
    return winhttp_error(url, GetLastError());
  }
  DWORD size = sizeof r.status;
  if (!WinHttpQueryHeaders(r.request.get(), WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER, WINHTTP_HEADER_NAME_BY_INDEX,
                           &r.status, &size, WINHTTP_NO_HEADER_INDEX)) {
    return winhttp_error(url, GetLastError());
  }
  wchar_t length[32] = {0};
  DWORD length_size = sizeof length;
  if (WinHttpQueryHeaders(r.request.get(), WINHTTP_QUERY_CONTENT_LENGTH, WINHTTP_HEADER_NAME_BY_INDEX, length, &length_size,
                          WINHTTP_NO_HEADER_INDEX)) {
    r.content_length = std::wcstoull(length, nullptr, 10);
  }
  return ok_status();
}

Status status_error(const std::string& url, DWORD status) {
  if (status == 404) return make_error(ErrorCode::kNotFound, url + " does not exist (HTTP 404)", url);
  return make_error(ErrorCode::kIo, url + " answered HTTP " + std::to_string(status), url);
}

// Reads the body in chunks into `sink`; stops early when the sink returns false.
template <typename Sink>
Status read_body(const std::string& url, Request& r, Sink sink) {
  std::vector<char> buf(256 << 10);
  while (true) {
    DWORD got = 0;
    if (!WinHttpReadData(r.request.get(), buf.data(), DWORD(buf.size()), &got)) return winhttp_error(url, GetLastError());
    if (got == 0) return ok_status();
    if (auto s = sink(buf.data(), size_t(got)); !s) return s;
  }
}

}  // namespace

Result<std::string> http_get_text(const std::string& url, size_t max_bytes) {
  Request r;
  if (auto s = open_request(url, L"", 20, 120, r); !s) return s.error();
  if (r.status >= 400) return status_error(url, r.status).error();
  std::string out;
  auto s = read_body(url, r, [&](const char* data, size_t n) -> Status {
    if (out.size() + n > max_bytes) {
      return make_error(ErrorCode::kCorrupt, url + " is larger than " + std::to_string(max_bytes) + " bytes", url);
    }
    out.append(data, n);
    return ok_status();
  });
  if (!s) return s.error();
  return out;
}

Status http_download(const std::string& url, const std::string& part_path, const DownloadOptions& o) {
  std::wstring wpart = win32::to_win_path(part_path);
  HANDLE file = CreateFileW(wpart.c_str(), GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ, nullptr, OPEN_ALWAYS,
                            FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) return win32::make_win32_error("cannot write", part_path, GetLastError());
  struct Closer {
    HANDLE h;
    ~Closer() { CloseHandle(h); }
  } closer{file};
  LARGE_INTEGER size{};
  GetFileSizeEx(file, &size);
  uint64_t have = uint64_t(size.QuadPart);
  auto start_over = [&]() -> Status {
    LARGE_INTEGER zero{};
    if (!SetFilePointerEx(file, zero, nullptr, FILE_BEGIN) || !SetEndOfFile(file)) {
      return win32::make_win32_error("cannot truncate", part_path, GetLastError());
    }
    have = 0;
    return ok_status();
  };
  if (o.expected_size && have > o.expected_size) {  // not ours, or a different file: start over
    if (auto s = start_over(); !s) return s;
  }
  if (o.expected_size && have == o.expected_size) return ok_status();  // already complete

  Request r;
  std::wstring range = have ? L"Range: bytes=" + std::to_wstring(have) + L"-" : L"";
  if (auto s = open_request(url, range, o.connect_timeout_s, o.stall_timeout_s, r); !s) {
    Error e = s.error();
    e.message += "; run the same command again to continue where it stopped";
    return e;
  }
  if (have && r.status == 416 && o.expected_size == 0) return ok_status();  // nothing left to fetch
  if (r.status >= 400) return status_error(url, r.status);
  if (have && r.status == 200) {
    // No range support: the body is the whole file again.
    if (auto s = start_over(); !s) return s;
  }
  LARGE_INTEGER end{};
  end.QuadPart = LONGLONG(have);
  if (!SetFilePointerEx(file, end, nullptr, FILE_BEGIN)) return win32::make_win32_error("cannot seek in", part_path, GetLastError());

  std::atomic<uint64_t> received{0};
  uint64_t total = o.expected_size ? o.expected_size : (r.content_length ? have + r.content_length : 0);
  ProgressPhase phase(o.progress, "downloading " + o.label, total, [&] { return have + received.load(std::memory_order_relaxed); });
  auto s = read_body(url, r, [&](const char* data, size_t n) -> Status {
    DWORD written = 0;
    if (!WriteFile(file, data, DWORD(n), &written, nullptr) || written != n) {
      return make_error(ErrorCode::kIo, "cannot write " + part_path + " (disk full?)", part_path);
    }
    received.fetch_add(n, std::memory_order_relaxed);
    return ok_status();
  });
  if (!s) {
    Error e = s.error();
    if (e.code != ErrorCode::kIo || e.message.rfind("cannot write", 0) != 0) {
      e.message += "; run the same command again to continue where it stopped";
    }
    return e;
  }
  return ok_status();
}

}  // namespace cudnnup
