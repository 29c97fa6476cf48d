#include <windows.h>

#include <cstdint>

#include "platform/file_lock.h"
#include "platform/win32_text.h"

namespace cudnnup {
namespace {

// A file whose deletion is pending (its last holder released it with remove_at_release) cannot
// be opened again until every handle is closed; and one locked while pending is not the file
// the next process finds. Both mean: try again shortly.
bool delete_pending(HANDLE h) {
  FILE_STANDARD_INFO info{};
  return GetFileInformationByHandleEx(h, FileStandardInfo, &info, sizeof info) && info.DeletePending;
}

}  // namespace

Result<FileLock> FileLock::acquire(const std::string& path, bool wait) { return acquire_file(path, wait, FILE_ATTRIBUTE_NORMAL); }

Result<FileLock> FileLock::acquire_dir(const std::string& dir, bool wait) {
  return acquire_file(dir + "/.cudnnup-lock", wait, FILE_ATTRIBUTE_HIDDEN | FILE_FLAG_DELETE_ON_CLOSE);
}

Result<FileLock> FileLock::acquire_file(const std::string& path, bool wait, unsigned long flags_and_attributes) {
  for (int attempt = 0;; ++attempt) {
    HANDLE h = CreateFileW(win32::to_win_path(path).c_str(), GENERIC_READ | GENERIC_WRITE | DELETE,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS,
                           DWORD(flags_and_attributes), nullptr);
    if (h == INVALID_HANDLE_VALUE) {
      DWORD err = GetLastError();
      if (err == ERROR_ACCESS_DENIED && attempt < 200) {  // delete pending, or really denied
        Sleep(25);
        continue;
      }
      return win32::make_win32_error("cannot open lock file", path, err);
    }
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
    if (delete_pending(h) && attempt < 200) {
      CloseHandle(h);
      Sleep(25);
      continue;
    }
    return FileLock(static_cast<long long>(reinterpret_cast<intptr_t>(h)), path);
  }
}

void FileLock::release() {
  if (handle_ == kNone) return;
  HANDLE h = reinterpret_cast<HANDLE>(static_cast<intptr_t>(handle_));
  if (remove_at_release_) {
    FILE_DISPOSITION_INFO dispose{TRUE};
    SetFileInformationByHandle(h, FileDispositionInfo, &dispose, sizeof dispose);
  }
  CloseHandle(h);
  handle_ = kNone;
}

}  // namespace cudnnup
