#include "adapters/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>

namespace cudnnup {

Result<ArchiveReader> ArchiveReader::open(const std::string& path) {
  struct archive* a = archive_read_new();
  if (!a) return make_error(ErrorCode::kInternal, "libarchive could not allocate a reader");
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  archive_read_support_format_gnutar(a);
  archive_read_support_format_zip(a);
  if (archive_read_open_filename(a, path.c_str(), 1 << 20) != ARCHIVE_OK) {
    std::string msg = archive_error_string(a) ? archive_error_string(a) : "unknown error";
    int err = archive_errno(a);
    archive_read_free(a);
    ErrorCode code = err == ENOENT ? ErrorCode::kNotFound : err == EACCES ? ErrorCode::kPermission : ErrorCode::kCorrupt;
    return make_error(code, "cannot open archive " + path + ": " + msg, path);
  }
  return ArchiveReader(a, path);
}

ArchiveReader::ArchiveReader(ArchiveReader&& other) noexcept : a_(other.a_), path_(std::move(other.path_)) {
  other.a_ = nullptr;
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
  ArchiveEntryInfo info;
  const char* name = archive_entry_pathname_utf8(e);
  if (!name) name = archive_entry_pathname(e);
  info.path = name ? name : "";
  info.size_known = archive_entry_size_is_set(e) != 0;
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

Result<size_t> ArchiveReader::read(char* buf, size_t n) {
  la_ssize_t got = archive_read_data(a_, buf, n);
  if (got < 0) return error("cannot read data from");
  return static_cast<size_t>(got);
}

}  // namespace cudnnup
