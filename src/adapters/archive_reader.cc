#include "adapters/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#ifdef _WIN32
#include "platform/win32_text.h"  // UTF-8 paths to the wide calls (the narrow ones take the ANSI code page)
#endif

namespace cudnnup {

namespace {

int open_filename(struct archive* a, const std::string& path) {
#ifdef _WIN32
  return archive_read_open_filename_w(a, win32::widen(path).c_str(), 1 << 20);
#else
  return archive_read_open_filename(a, path.c_str(), 1 << 20);
#endif
}

// The Windows build's libarchive (scripts/build-windows-deps.sh) has zlib only: Windows cuDNN
// archives are .zip (deflate). A .tar.xz there gets this instead of libarchive's terse message.
bool is_xz_without_support(const std::string& path) {
#ifdef _WIN32
  return path.size() > 3 && (path.compare(path.size() - 3, 3, ".xz") == 0 || path.compare(path.size() - 4, 4, ".txz") == 0);
#else
  (void)path;
  return false;
#endif
}

}  // namespace

Result<std::unique_ptr<ArchiveReader>> ArchiveReader::open(const std::string& path) {
  if (is_xz_without_support(path)) {
    return make_error(ErrorCode::kUnsupported,
                      "cannot read " + path + ": this Windows build reads .zip archives only (NVIDIA ships cuDNN for "
                      "Windows as .zip; .tar.xz archives are the Linux ones) — use the Windows .zip archive",
                      path);
  }
  struct archive* a = archive_read_new();
  if (!a) return make_error(ErrorCode::kInternal, "libarchive could not allocate a reader");
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  archive_read_support_format_gnutar(a);
  archive_read_support_format_zip(a);
  if (open_filename(a, path) != ARCHIVE_OK) {
    std::string msg = archive_error_string(a) ? archive_error_string(a) : "unknown error";
    int err = archive_errno(a);
    archive_read_free(a);
    ErrorCode code = err == ENOENT ? ErrorCode::kNotFound : err == EACCES ? ErrorCode::kPermission : ErrorCode::kCorrupt;
    return make_error(code, "cannot open archive " + path + ": " + msg, path);
  }
  return std::unique_ptr<ArchiveReader>(new ArchiveReader(a, path));
}

ArchiveReader::~ArchiveReader() {
  if (a_) archive_read_free(a_);
}

Error ArchiveReader::error(const std::string& what) const {
  const char* msg = archive_error_string(a_);
  return make_error(ErrorCode::kCorrupt,
                    what + " " + path_ + ": " + (msg ? msg : "damaged data") +
                        " (the archive is damaged or truncated; download it again)",
                    path_);
}

Result<std::optional<ArchiveEntryInfo>> ArchiveReader::next() {
  struct archive_entry* e = nullptr;
  int rc = archive_read_next_header(a_, &e);
  if (rc == ARCHIVE_EOF) return std::optional<ArchiveEntryInfo>();
  if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return error("cannot read the next entry of");
  entry_offset_ = 0;
  ArchiveEntryInfo info;
  const char* name = archive_entry_pathname_utf8(e);
  if (!name) name = archive_entry_pathname(e);
  info.path = name ? name : "";
  info.size_known = archive_entry_size_is_set(e) != 0;
  info.mode = static_cast<uint32_t>(archive_entry_perm(e)) & 07777;
  info.size = info.size_known ? static_cast<uint64_t>(archive_entry_size(e)) : 0;
  if (const char* hard = archive_entry_hardlink(e)) {
    info.kind = EntryKind::kHardlink;
    info.link_target = hard;
    return std::optional<ArchiveEntryInfo>(info);
  }
  switch (archive_entry_filetype(e)) {
    case AE_IFREG: info.kind = EntryKind::kFile; break;
    case AE_IFDIR: info.kind = EntryKind::kDirectory; break;
    case AE_IFLNK:
      info.kind = EntryKind::kSymlink;
      info.link_target = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
      break;
    case AE_IFCHR:
    case AE_IFBLK: info.kind = EntryKind::kDevice; break;
    case AE_IFIFO: info.kind = EntryKind::kFifo; break;
    case AE_IFSOCK: info.kind = EntryKind::kSocket; break;
    default: info.kind = EntryKind::kOther;
  }
  return std::optional<ArchiveEntryInfo>(info);
}

Result<std::string_view> ArchiveReader::read_block() {
  const void* block = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  int rc = archive_read_data_block(a_, &block, &size, &offset);
  if (rc == ARCHIVE_EOF) return std::string_view();
  if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return error("cannot read data from");
  if (offset != entry_offset_) {
    return make_error(ErrorCode::kCorrupt, "a sparse entry (with holes) in " + path_ + "; official cuDNN archives have none", path_);
  }
  entry_offset_ += static_cast<int64_t>(size);
  return std::string_view(static_cast<const char*>(block), size);
}

uint64_t ArchiveReader::position() const {
  la_int64_t n = archive_filter_bytes(a_, -1);  // bytes read from the file itself
  return n > 0 ? static_cast<uint64_t>(n) : 0;
}

ArchiveOpener libarchive_opener() {
  return [](const std::string& path) -> Result<std::unique_ptr<ArchiveEntries>> {
    auto r = ArchiveReader::open(path);
    if (!r) return r.error();
    return std::unique_ptr<ArchiveEntries>(std::move(*r));
  };
}

}  // namespace cudnnup
