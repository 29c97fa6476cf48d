// A Win32 HANDLE that closes itself (CreateFileW, CreatePipe, CreateProcessW, job objects).
// Windows only: include it from *_win32.cc files.
#pragma once

#include <windows.h>

namespace cudnnup::win32 {

class OwnedHandle {
 public:
  OwnedHandle() = default;
  explicit OwnedHandle(HANDLE h) : h_(h) {}
  ~OwnedHandle() { reset(); }
  OwnedHandle(OwnedHandle&& other) noexcept : h_(other.h_) { other.h_ = nullptr; }
  OwnedHandle(const OwnedHandle&) = delete;
  OwnedHandle& operator=(const OwnedHandle&) = delete;
  // Closes the handle held (if any) and holds `h`.
  void reset(HANDLE h = nullptr) {
    if (valid()) CloseHandle(h_);
    h_ = h;
  }
  HANDLE get() const { return h_; }
  HANDLE* out() { return &h_; }  // for APIs that write a new handle (CreatePipe)
  // CreateFileW fails with INVALID_HANDLE_VALUE, most other APIs with nullptr.
  bool valid() const { return h_ && h_ != INVALID_HANDLE_VALUE; }

 private:
  HANDLE h_ = nullptr;
};

}  // namespace cudnnup::win32
