#include "adapters/archive_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "platform/sha256.h"
#ifdef _WIN32
#include "platform/win32_text.h"  // UTF-8 paths to the wide calls (the narrow ones take the ANSI code page)
#endif

namespace cudnnup {

// The archive file, read in 128 KiB blocks for libarchive, and hashed on a second thread so the
// whole-file sha256 costs no time on the extracting thread. Blocks sit in a small ring: a block is
// refilled only after the hasher is done with it (libarchive itself needs only the latest block).
struct ArchiveReader::Source {
  static constexpr size_t kBlock = 128 << 10;
  static constexpr long long kRing = 128;  // 16 MiB: a loose coupling, so neither thread waits on the other's time slice
  std::FILE* file = nullptr;
  Sha256 hash;
  std::vector<std::vector<char>> bufs = std::vector<std::vector<char>>(kRing, std::vector<char>(kBlock));
  std::vector<size_t> lens = std::vector<size_t>(kRing, 0);
  long long produced = 0;
  long long consumed = 0;
  bool done = false;
  std::mutex m;
  std::condition_variable cv;
  std::thread hasher;

  Source() {
    hasher = std::thread([this] {
      std::unique_lock<std::mutex> lock(m);
      while (true) {
        cv.wait(lock, [this] { return consumed < produced || done; });
        if (consumed == produced && done) return;
        long long i = consumed % kRing;
        lock.unlock();
        hash.update(std::string_view(bufs[i].data(), lens[i]));
        lock.lock();
        ++consumed;
        cv.notify_all();
      }
    });
  }
  ~Source() {
    stop();
    if (file) std::fclose(file);
  }
  void stop() {
    {
      std::lock_guard<std::mutex> lock(m);
      done = true;
    }
    cv.notify_all();
    if (hasher.joinable()) hasher.join();
  }
  // Reads the next block; returns it (empty at the end), or nullptr on a read error.
  const char* next_block(size_t* n) {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [this] { return produced - consumed < kRing - 1; });
    long long i = produced % kRing;
    lock.unlock();
    *n = std::fread(bufs[i].data(), 1, kBlock, file);
    if (*n == 0 && std::ferror(file)) return nullptr;
    lens[i] = *n;
    lock.lock();
    ++produced;
    cv.notify_all();
    return bufs[i].data();
  }
};

namespace {

la_ssize_t read_and_hash(struct archive*, void* client, const void** out) {
  auto* src = static_cast<ArchiveReader::Source*>(client);
  size_t n = 0;
  const char* block = src->next_block(&n);
  if (!block) return -1;
  *out = block;
  return static_cast<la_ssize_t>(n);
}

std::FILE* open_for_reading(const std::string& path) {
#ifdef _WIN32
  return _wfopen(win32::widen(path).c_str(), L"rb");
#else
  return std::fopen(path.c_str(), "rb");
#endif
}

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

bool is_zip(const std::string& path) {
  return path.size() > 4 && (path.compare(path.size() - 4, 4, ".zip") == 0 || path.compare(path.size() - 4, 4, ".ZIP") == 0);
}

}  // namespace

ArchiveReader::ArchiveReader(struct archive* a, std::string path, std::unique_ptr<Source> source)
    : a_(a), path_(std::move(path)), source_(std::move(source)) {}

Result<std::string> ArchiveReader::finish_file_hash() {
  if (!source_) return std::string();
  while (true) {  // the rest libarchive did not need (end-of-archive padding)
    size_t n = 0;
    if (!source_->next_block(&n)) return make_error(ErrorCode::kIo, "cannot read " + path_, path_);
    if (n == 0) break;
  }
  source_->stop();
  return source_->hash.hex_digest();
}

Result<ArchiveReader> ArchiveReader::open(const std::string& path, bool hash_file) {
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
  std::unique_ptr<Source> source;
  if (hash_file && !is_zip(path)) {
    source = std::make_unique<Source>();
    source->file = open_for_reading(path);
    if (!source->file) {
      archive_read_free(a);
      return make_error(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kPermission, "cannot open archive " + path, path);
    }
    if (archive_read_open(a, source.get(), nullptr, read_and_hash, nullptr) != ARCHIVE_OK) {
      std::string msg = archive_error_string(a) ? archive_error_string(a) : "unknown error";
      archive_read_free(a);
      return make_error(ErrorCode::kCorrupt, "cannot open archive " + path + ": " + msg, path);
    }
    return ArchiveReader(a, path, std::move(source));
  }
  if (open_filename(a, path) != ARCHIVE_OK) {
    std::string msg = archive_error_string(a) ? archive_error_string(a) : "unknown error";
    int err = archive_errno(a);
    archive_read_free(a);
    ErrorCode code = err == ENOENT ? ErrorCode::kNotFound : err == EACCES ? ErrorCode::kPermission : ErrorCode::kCorrupt;
    return make_error(code, "cannot open archive " + path + ": " + msg, path);
  }
  return ArchiveReader(a, path, nullptr);
}

ArchiveReader::ArchiveReader(ArchiveReader&& other) noexcept
    : a_(other.a_), path_(std::move(other.path_)), source_(std::move(other.source_)) {
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
  entry_offset_ = 0;
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

}  // namespace cudnnup
