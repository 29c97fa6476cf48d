#include <windows.h>

#include <cstdint>

#include "platform/file_lock.h"
#include "platform/win32_text.h"

namespace cudnnup {

Result<FileLock> FileLock::acquire(const std::string& path, bool wait) {
  HANDLE h = CreateFileW(win32::to_win_path(path).c_str(), GENERIC_READ | GENERIC_WRITE,
                         FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS,
                         FILE_ATTRIBUTE_NORMAL, nullptr);
  if (h == INVALID_HANDLE_VALUE) return win32::make_win32_error("cannot open lock file", path, GetLastError());
  OVERLAPPED ov{};
  DWORD flags = LOCKFILE_EXCLUSIVE_LOCK | (wait ? 0 : LOCKFILE_FAIL_IMMEDIATELY);
  // Locks the whole (possibly empty) file range; Windows releases it when the handle closes or
  // the process dies.
  if (!LockFileEx(h, flags, 0, MAXDWORD, MAXDWORD, &ov)) {
    DWORD err = GetLastError();
    CloseHandle(h);
    if (err == ERROR_LOCK_VIOLATION || err == ERROR_IO_PENDING) {
      return make_error(ErrorCode::kConflict,
                        "another cudnnup is changing this installation (lock " + path + " is held); wait for it to finish",
                        path);
    }
    return win32::make_win32_error("cannot lock", path, err);
  }
  return FileLock(static_cast<long long>(reinterpret_cast<intptr_t>(h)));
}

FileLock::~FileLock() {
  if (handle_ != kNone) CloseHandle(reinterpret_cast<HANDLE>(static_cast<intptr_t>(handle_)));
}

}  // namespace cudnnup
