// The Windows FileSystem: wide-character Win32 calls, '/'-separated UTF-8 paths in and out.
// Symlinks and directory junctions (both NTFS reparse points) are what kSymlink means here.
#include <windows.h>
#include <winioctl.h>

#include <fcntl.h>
#include <io.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/paths.h"
#include "platform/real_filesystem.h"
#include "platform/win32_handle.h"
#include "platform/win32_text.h"

namespace cudnnup {
namespace {

using win32::make_win32_error;
using win32::to_win_path;

// REPARSE_DATA_BUFFER lives in the driver kit's ntifs.h, not in the SDK headers, so the two
// layouts we read and write are spelled out here (MS-FSCC 2.1.2.4 symlink, 2.1.2.5 mount point).
constexpr size_t kReparseHeader = 8;  // ReparseTag(4) ReparseDataLength(2) Reserved(2)

constexpr DWORD kShareAll = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

int64_t filetime_to_unix_ns(FILETIME ft) {
  uint64_t t = (uint64_t(ft.dwHighDateTime) << 32) | ft.dwLowDateTime;  // 100 ns since 1601
  return (static_cast<int64_t>(t) - 116444736000000000LL) * 100;
}

bool is_link_tag(DWORD tag) { return tag == IO_REPARSE_TAG_SYMLINK || tag == IO_REPARSE_TAG_MOUNT_POINT; }

// Type of a directory entry without following links. Other reparse points (OneDrive
// placeholders, dedup) behave like ordinary files and directories, so they are reported as such.
FileType type_of(DWORD attributes, DWORD reparse_tag) {
  if ((attributes & FILE_ATTRIBUTE_REPARSE_POINT) && is_link_tag(reparse_tag)) return FileType::kSymlink;
  if (attributes & FILE_ATTRIBUTE_DIRECTORY) return FileType::kDirectory;
  if (attributes & FILE_ATTRIBUTE_DEVICE) return FileType::kOther;
  return FileType::kRegular;
}

// A file streamed to disk (install writes libraries of hundreds of MB). Windows has no syncfs for
// an unprivileged process (flushing a whole volume needs administrator rights), so every file is
// flushed when it is closed: by the time the installer calls sync_filesystem() and commits,
// everything it staged is already on disk.
class WindowsFileWriter final : public FileWriter {
 public:
  WindowsFileWriter(HANDLE h, std::string path) : h_(h), path_(std::move(path)) {}
  ~WindowsFileWriter() override {
    if (h_ != INVALID_HANDLE_VALUE) CloseHandle(h_);
  }
  Status write(std::string_view bytes) override {
    while (!bytes.empty()) {
      DWORD chunk = DWORD(std::min<size_t>(bytes.size(), 1u << 30));
      DWORD n = 0;
      if (!WriteFile(h_, bytes.data(), chunk, &n, nullptr)) return make_win32_error("cannot write", path_, GetLastError());
      bytes.remove_prefix(n);
    }
    return ok_status();
  }
  Status close(bool /*sync: always, see above*/) override {
    HANDLE h = h_;
    h_ = INVALID_HANDLE_VALUE;
    bool flushed = FlushFileBuffers(h);
    DWORD err = flushed ? 0 : GetLastError();
    if (!CloseHandle(h) && flushed) return make_win32_error("cannot close", path_, GetLastError());
    if (!flushed) return make_win32_error("cannot sync", path_, err);
    return ok_status();
  }

 private:
  HANDLE h_;
  std::string path_;
};

class WindowsFileSystem final : public FileSystem {
 public:
  Result<FileInfo> stat(const std::string& path) const override {
    // Opening the path (not the link) follows every symlink and junction.
    win32::OwnedHandle h(CreateFileW(to_win_path(path).c_str(), FILE_READ_ATTRIBUTES, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (!h.valid()) return make_win32_error("cannot stat", path, GetLastError());
    BY_HANDLE_FILE_INFORMATION bhfi;
    if (!GetFileInformationByHandle(h.get(), &bhfi)) return make_win32_error("cannot stat", path, GetLastError());
    FileInfo info;
    info.type = (bhfi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? FileType::kDirectory : FileType::kRegular;
    info.size = info.type == FileType::kDirectory ? 0 : (uint64_t(bhfi.nFileSizeHigh) << 32) | bhfi.nFileSizeLow;
    info.mtime_ns = filetime_to_unix_ns(bhfi.ftLastWriteTime);
    return info;
  }

  Result<FileInfo> lstat(const std::string& path) const override {
    std::wstring wpath = to_win_path(path);
    WIN32_FILE_ATTRIBUTE_DATA data;
    if (!GetFileAttributesExW(wpath.c_str(), GetFileExInfoStandard, &data)) {
      return make_win32_error("cannot stat", path, GetLastError());
    }
    DWORD tag = 0;
    if (data.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
      // Only FindFirstFile reports the reparse tag without opening the file.
      WIN32_FIND_DATAW find;
      HANDLE f = FindFirstFileExW(wpath.c_str(), FindExInfoBasic, &find, FindExSearchNameMatch, nullptr, 0);
      if (f != INVALID_HANDLE_VALUE) {
        tag = find.dwReserved0;
        FindClose(f);
      }
    }
    FileInfo info;
    info.type = type_of(data.dwFileAttributes, tag);
    info.size = info.type == FileType::kRegular ? (uint64_t(data.nFileSizeHigh) << 32) | data.nFileSizeLow : 0;
    info.mtime_ns = filetime_to_unix_ns(data.ftLastWriteTime);
    return info;
  }

  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    std::wstring pattern = to_win_path(paths::join(path, "*"));
    WIN32_FIND_DATAW find;
    HANDLE f = FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &find, FindExSearchNameMatch, nullptr, 0);
    if (f == INVALID_HANDLE_VALUE) {
      DWORD err = GetLastError();
      if (err == ERROR_FILE_NOT_FOUND) {
        // No entries at all (not even "."), which happens for drive roots; check the directory exists.
        if (is_dir(path)) return std::vector<DirEntry>{};
      }
      return make_win32_error("cannot list", path, err);
    }
    std::vector<DirEntry> entries;
    do {
      if (wcscmp(find.cFileName, L".") == 0 || wcscmp(find.cFileName, L"..") == 0) continue;
      DirEntry entry;
      entry.name = win32::narrow(find.cFileName);
      entry.type = type_of(find.dwFileAttributes, find.dwReserved0);
      entries.push_back(std::move(entry));
    } while (FindNextFileW(f, &find));
    DWORD err = GetLastError();
    FindClose(f);
    if (err != ERROR_NO_MORE_FILES) return make_win32_error("cannot list", path, err);
    return entries;
  }

  Result<std::string> read_link(const std::string& path) const override {
    win32::OwnedHandle h(CreateFileW(to_win_path(path).c_str(), FILE_READ_ATTRIBUTES, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (!h.valid()) return make_win32_error("cannot read link", path, GetLastError());
    std::vector<unsigned char> buf(MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
    DWORD got = 0;
    if (!DeviceIoControl(h.get(), FSCTL_GET_REPARSE_POINT, nullptr, 0, buf.data(), DWORD(buf.size()), &got,
                         nullptr)) {
      DWORD err = GetLastError();
      if (err == ERROR_NOT_A_REPARSE_POINT) {
        return make_error(ErrorCode::kUnsupported, "cannot read link " + path + ": it is not a link", path);
      }
      return make_win32_error("cannot read link", path, err);
    }
    auto u16 = [&](size_t off) {
      uint16_t v = 0;
      if (off + 2 <= got) std::memcpy(&v, buf.data() + off, 2);
      return v;
    };
    uint32_t tag = 0;
    std::memcpy(&tag, buf.data(), 4);
    size_t names_at;  // where PathBuffer starts
    if (tag == IO_REPARSE_TAG_SYMLINK) {
      // Symlinks carry a Flags field (SYMLINK_FLAG_RELATIVE); a relative target is returned as
      // it is, like readlink(2).
      names_at = kReparseHeader + 12;
    } else if (tag == IO_REPARSE_TAG_MOUNT_POINT) {
      names_at = kReparseHeader + 8;
    } else {
      return make_error(ErrorCode::kUnsupported,
                        "cannot read link " + path + ": it is a reparse point of another kind (tag " +
                            std::to_string(tag) + ")",
                        path);
    }
    auto name_at = [&](size_t offset_field) -> std::wstring {
      size_t off = names_at + u16(kReparseHeader + offset_field);
      size_t len = u16(kReparseHeader + offset_field + 2);
      if (off + len > got) return {};
      return std::wstring(reinterpret_cast<const wchar_t*>(buf.data() + off), len / sizeof(wchar_t));
    };
    // The print name is what mklink shows; the substitute name is the NT path ("\??\C:\...").
    std::wstring target = name_at(4);
    if (target.empty()) target = name_at(0);
    if (target.empty()) return make_error(ErrorCode::kCorrupt, "cannot read link " + path + ": empty target", path);
    std::string out = win32::from_win_path(target);
    return out;
  }

  Result<std::string> read_range(const std::string& path, uint64_t offset, size_t max_bytes) const override {
    win32::OwnedHandle h(CreateFileW(to_win_path(path).c_str(), GENERIC_READ, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!h.valid()) return make_win32_error("cannot open", path, GetLastError());
    // Size the buffer by what the file holds: callers pass generous caps (16 MiB), and
    // zero-filling the cap for every small file costs more than reading it. One byte past the size
    // seen, so that a file that grew is still noticed (read_regular reads cap + 1 to refuse a file
    // over its cap). A size of 0 says nothing (a device, a file being written): read to the cap.
    LARGE_INTEGER size{};
    if (GetFileSizeEx(h.get(), &size) && size.QuadPart > 0) {
      uint64_t left = uint64_t(size.QuadPart) > offset ? uint64_t(size.QuadPart) - offset : 0;
      max_bytes = size_t(std::min<uint64_t>(max_bytes, left + 1));
    }
    std::string out;
    out.resize(max_bytes);
    size_t done = 0;
    while (done < max_bytes) {
      OVERLAPPED ov{};
      uint64_t at = offset + done;
      ov.Offset = DWORD(at & 0xffffffffu);
      ov.OffsetHigh = DWORD(at >> 32);
      DWORD chunk = DWORD(std::min<size_t>(max_bytes - done, 1u << 30));
      DWORD n = 0;
      if (!ReadFile(h.get(), out.data() + done, chunk, &n, &ov)) {
        DWORD err = GetLastError();
        if (err == ERROR_HANDLE_EOF) break;
        return make_win32_error("cannot read", path, err);
      }
      if (n == 0) break;
      done += n;
    }
    out.resize(done);
    return out;
  }

  Result<std::string> canonical(const std::string& path) const override {
    win32::OwnedHandle h(CreateFileW(to_win_path(path).c_str(), FILE_READ_ATTRIBUTES, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (!h.valid()) return make_win32_error("cannot resolve", path, GetLastError());
    std::wstring buf(1024, L'\0');
    DWORD n = GetFinalPathNameByHandleW(h.get(), buf.data(), DWORD(buf.size()), FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    if (n >= buf.size()) {
      buf.resize(n + 1);
      n = GetFinalPathNameByHandleW(h.get(), buf.data(), DWORD(buf.size()), FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
    }
    if (n == 0 || n >= buf.size()) return make_win32_error("cannot resolve", path, GetLastError());
    buf.resize(n);
    return win32::from_win_path(buf);
  }

  Status make_dir(const std::string& path) override {
    if (!CreateDirectoryW(to_win_path(path).c_str(), nullptr)) {
      DWORD err = GetLastError();
      if (err != ERROR_ALREADY_EXISTS) return make_win32_error("cannot create directory", path, err);
    }
    return ok_status();
  }

  Status write_file(const std::string& path, const std::string& contents, bool sync) override {
    win32::OwnedHandle h(CreateFileW(to_win_path(path).c_str(), GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_ALWAYS,
                         FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!h.valid()) return make_win32_error("cannot create", path, GetLastError());
    size_t done = 0;
    while (done < contents.size()) {
      DWORD chunk = DWORD(std::min<size_t>(contents.size() - done, 1u << 30));
      DWORD n = 0;
      if (!WriteFile(h.get(), contents.data() + done, chunk, &n, nullptr)) {
        return make_win32_error("cannot write", path, GetLastError());
      }
      done += n;
    }
    if (sync && !FlushFileBuffers(h.get())) return make_win32_error("cannot sync", path, GetLastError());
    return ok_status();
  }

  Result<std::unique_ptr<FileWriter>> create_file(const std::string& path) override {
    HANDLE h = CreateFileW(to_win_path(path).c_str(), GENERIC_WRITE, FILE_SHARE_READ, nullptr, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE) return make_win32_error("cannot create", path, GetLastError());
    return std::unique_ptr<FileWriter>(std::make_unique<WindowsFileWriter>(h, path));
  }

  // Directory entries: NTFS journals its metadata and rename() asks for MOVEFILE_WRITE_THROUGH,
  // so there is nothing to flush for a directory (and no way to open one for writing unprivileged).
  Status sync_dir(const std::string& /*path*/) override { return ok_status(); }
  // Every file written through create_file/write_file(sync) is flushed at close (see above).
  Status sync_filesystem(const std::string& /*path*/) override { return ok_status(); }

  Status rename(const std::string& from, const std::string& to) override {
    // WRITE_THROUGH: the call returns after the rename is on disk, which the install journal needs.
    std::wstring wfrom = to_win_path(from), wto = to_win_path(to);
    if (MoveFileExW(wfrom.c_str(), wto.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) return ok_status();
    DWORD err = GetLastError();
    // MoveFileExW never replaces a directory, and a junction or directory symlink is one. For
    // the store's `current` link (core/current_link.cc: make a new link, rename it over the old)
    // retarget the old link in place with the new one's reparse data, then drop the new one.
    if ((err == ERROR_ACCESS_DENIED || err == ERROR_ALREADY_EXISTS) && is_dir_link(wfrom) && is_dir_link(wto)) {
      if (auto s = replace_dir_link(from, to); !s) return s;
      return ok_status();
    }
    return make_win32_error("cannot rename " + from + " to", to, err);
  }

  Status create_dir_link(const std::string& target, const std::string& link) override {
    // A junction needs no privilege (symlinks need admin rights or Developer Mode).
    return make_junction(paths::normalize(target), link);
  }

  Status remove(const std::string& path) override {
    std::wstring wpath = to_win_path(path);
    DWORD attributes = GetFileAttributesW(wpath.c_str());
    if (attributes == INVALID_FILE_ATTRIBUTES) return make_win32_error("cannot remove", path, GetLastError());
    // A directory symlink or junction is removed with RemoveDirectoryW, which removes the link only.
    bool dir = (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    auto attempt = [&] { return dir ? RemoveDirectoryW(wpath.c_str()) : DeleteFileW(wpath.c_str()); };
    if (attempt()) return ok_status();
    DWORD err = GetLastError();
    if (err == ERROR_ACCESS_DENIED && (attributes & FILE_ATTRIBUTE_READONLY)) {
      // Files unpacked from archives are often read-only, which DeleteFileW refuses.
      SetFileAttributesW(wpath.c_str(), attributes & ~DWORD(FILE_ATTRIBUTE_READONLY));
      if (attempt()) return ok_status();
      err = GetLastError();
    }
    return make_win32_error("cannot remove", path, err);
  }

  Status symlink(const std::string& target, const std::string& link) override {
    std::string absolute_target =
        paths::is_absolute(target) ? target : paths::normalize(paths::join(paths::parent(link), target));
    std::wstring wtarget = to_win_path(target);
    std::wstring wlink = to_win_path(link);
    DWORD target_attributes = GetFileAttributesW(to_win_path(absolute_target).c_str());
    bool dir = target_attributes != INVALID_FILE_ATTRIBUTES && (target_attributes & FILE_ATTRIBUTE_DIRECTORY);
    DWORD flags = (dir ? SYMBOLIC_LINK_FLAG_DIRECTORY : 0) | SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
    // Wine's CreateSymbolicLinkW is a stub that reports success and creates nothing, so success
    // is only believed when the link is there afterwards.
    auto create = [&](DWORD f) -> DWORD {
      if (!CreateSymbolicLinkW(wlink.c_str(), wtarget.c_str(), f)) return GetLastError();
      if (GetFileAttributesW(wlink.c_str()) == INVALID_FILE_ATTRIBUTES) return ERROR_NOT_SUPPORTED;
      return ERROR_SUCCESS;
    };
    DWORD err = create(flags);
    if (err == ERROR_INVALID_PARAMETER) {
      // Windows before 10 1703 rejects the unprivileged flag itself.
      err = create(flags & ~DWORD(SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE));
    }
    if (err == ERROR_SUCCESS) return ok_status();
    if (dir && (err == ERROR_PRIVILEGE_NOT_HELD || err == ERROR_ACCESS_DENIED || err == ERROR_NOT_SUPPORTED ||
                err == ERROR_INVALID_FUNCTION)) {
      // No Developer Mode and no admin: a junction needs neither (local absolute targets only).
      return make_junction(absolute_target, link);
    }
    if (err == ERROR_PRIVILEGE_NOT_HELD) {
      return make_error(ErrorCode::kPermission,
                        "cannot create link " + link + ": creating file symlinks on Windows needs Developer Mode "
                        "or administrator rights (" + win32::error_text(err) + ")",
                        link);
    }
    return make_win32_error("cannot create link", link, err);
  }

 private:
  static bool is_dir_link(const std::wstring& wpath) {
    DWORD a = GetFileAttributesW(wpath.c_str());
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) && (a & FILE_ATTRIBUTE_REPARSE_POINT);
  }

  // The raw reparse data of a link (tag + names), as FSCTL_GET_REPARSE_POINT returns it.
  static Result<std::vector<unsigned char>> reparse_data(const std::string& path) {
    win32::OwnedHandle h(CreateFileW(to_win_path(path).c_str(), FILE_READ_ATTRIBUTES, kShareAll, nullptr, OPEN_EXISTING,
                         FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
    if (!h.valid()) return make_win32_error("cannot read link", path, GetLastError());
    std::vector<unsigned char> buf(MAXIMUM_REPARSE_DATA_BUFFER_SIZE);
    DWORD got = 0;
    if (!DeviceIoControl(h.get(), FSCTL_GET_REPARSE_POINT, nullptr, 0, buf.data(), DWORD(buf.size()), &got, nullptr)) {
      return make_win32_error("cannot read link", path, GetLastError());
    }
    buf.resize(got);
    return buf;
  }

  static Status replace_dir_link(const std::string& from, const std::string& to) {
    auto data = reparse_data(from);
    if (!data) return data.error();
    auto old = reparse_data(to);
    if (!old) return old.error();
    std::wstring wto = to_win_path(to);
    if (data->size() >= 4 && old->size() >= 4 && std::memcmp(data->data(), old->data(), 4) == 0) {
      // Same kind of link: FSCTL_SET_REPARSE_POINT modifies it in one call (facts A.5), so there
      // is no moment without a `current` link. Whether that call is crash-atomic is UNVERIFIED.
      win32::OwnedHandle h(CreateFileW(wto.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING,
                           FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
      DWORD unused = 0;
      if (!h.valid() || !DeviceIoControl(h.get(), FSCTL_SET_REPARSE_POINT, data->data(), DWORD(data->size()), nullptr,
                                         0, &unused, nullptr)) {
        return make_win32_error("cannot retarget link", to, GetLastError());
      }
    } else {
      // A symlink replaced by a junction (or the reverse): remove, then move. A crash in between
      // leaves no `current` link, which the store's recovery recreates from state.json.
      if (!RemoveDirectoryW(wto.c_str())) return make_win32_error("cannot remove link", to, GetLastError());
      if (!MoveFileExW(to_win_path(from).c_str(), wto.c_str(), MOVEFILE_WRITE_THROUGH)) {
        return make_win32_error("cannot rename " + from + " to", to, GetLastError());
      }
      return ok_status();
    }
    if (!RemoveDirectoryW(to_win_path(from).c_str())) return make_win32_error("cannot remove link", from, GetLastError());
    return ok_status();
  }

  static Status make_junction(const std::string& absolute_target, const std::string& link) {
    std::wstring print = to_win_path(absolute_target);
    if (print.rfind(L"\\\\?\\", 0) == 0) print = print.substr(4);
    std::wstring substitute = L"\\??\\" + print;
    size_t sub_bytes = substitute.size() * sizeof(wchar_t), print_bytes = print.size() * sizeof(wchar_t);
    // PathBuffer holds both names, each followed by a NUL.
    size_t data_len = 8 + sub_bytes + 2 + print_bytes + 2;
    if (kReparseHeader + data_len > MAXIMUM_REPARSE_DATA_BUFFER_SIZE) {
      return make_error(ErrorCode::kUsage, "cannot create junction " + link + ": the target path is too long", link);
    }
    std::vector<unsigned char> buf(kReparseHeader + data_len, 0);
    auto put16 = [&](size_t off, size_t v) {
      uint16_t x = uint16_t(v);
      std::memcpy(buf.data() + off, &x, 2);
    };
    uint32_t tag = IO_REPARSE_TAG_MOUNT_POINT;
    std::memcpy(buf.data(), &tag, 4);
    put16(4, data_len);
    put16(kReparseHeader + 0, 0);                 // SubstituteNameOffset
    put16(kReparseHeader + 2, sub_bytes);         // SubstituteNameLength
    put16(kReparseHeader + 4, sub_bytes + 2);     // PrintNameOffset
    put16(kReparseHeader + 6, print_bytes);       // PrintNameLength
    std::memcpy(buf.data() + kReparseHeader + 8, substitute.data(), sub_bytes);
    std::memcpy(buf.data() + kReparseHeader + 8 + sub_bytes + 2, print.data(), print_bytes);

    std::wstring wlink = to_win_path(link);
    if (!CreateDirectoryW(wlink.c_str(), nullptr)) {
      return make_win32_error("cannot create junction", link, GetLastError());
    }
    DWORD err = 0;
    {
      win32::OwnedHandle h(CreateFileW(wlink.c_str(), GENERIC_WRITE, 0, nullptr, OPEN_EXISTING,
                           FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, nullptr));
      DWORD unused = 0;
      if (!h.valid()) {
        err = GetLastError();
      } else if (!DeviceIoControl(h.get(), FSCTL_SET_REPARSE_POINT, buf.data(), DWORD(buf.size()), nullptr, 0,
                                  &unused, nullptr)) {
        err = GetLastError();
      }
    }
    if (err != 0) {
      RemoveDirectoryW(wlink.c_str());  // leave nothing half-made behind
      Error e = make_win32_error("cannot create junction", link, err);
      // A file system without reparse points (FAT32, exFAT, Wine's): links cannot be made here at
      // all, which the store treats as environment-only mode rather than as damage to repair.
      if (err == ERROR_NOT_SUPPORTED || err == ERROR_INVALID_FUNCTION) e.code = ErrorCode::kUnsupported;
      return e;
    }
    return ok_status();
  }
};

}  // namespace

std::unique_ptr<FileSystem> make_real_filesystem() { return std::make_unique<WindowsFileSystem>(); }

Result<std::string> read_standard_input(size_t max_bytes) {
  // Binary: the log's own line ends are kept (explain reads CRLF and LF alike).
  if (_fileno(stdin) < 0 || _setmode(_fileno(stdin), _O_BINARY) == -1) {
    return make_error(ErrorCode::kIo, "cannot read standard input: it is closed");
  }
  std::string out;
  char buf[65536];
  while (size_t n = std::fread(buf, 1, sizeof buf, stdin)) {
    out.append(buf, n);
    if (out.size() > max_bytes) return too_large_input("standard input", max_bytes);
  }
  if (std::ferror(stdin)) return make_error(ErrorCode::kIo, "cannot read standard input");
  return out;
}

}  // namespace cudnnup
