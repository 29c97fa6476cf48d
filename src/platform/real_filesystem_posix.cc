#include <dirent.h>

#include <algorithm>
#include <utility>
#include <vector>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/relative_path.h"
#include "platform/real_filesystem.h"

namespace cudnnup {
namespace {

Error errno_error(const std::string& what, const std::string& path, int err) {
  ErrorCode code = ErrorCode::kIo;
  if (err == ENOENT || err == ENOTDIR) code = ErrorCode::kNotFound;
  if (err == EACCES || err == EPERM || err == EROFS) code = ErrorCode::kPermission;
  return make_error(code, what + " " + path + ": " + strerror(err), path);
}

FileType type_of(mode_t mode) {
  if (S_ISREG(mode)) return FileType::kRegular;
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISLNK(mode)) return FileType::kSymlink;
  if (S_ISFIFO(mode)) return FileType::kFifo;
  return FileType::kOther;
}

// The effective group and the supplementary groups of this process.
bool in_our_groups(gid_t gid) {
  static const std::vector<gid_t> groups = [] {
    std::vector<gid_t> out{::getegid()};
    int n = ::getgroups(0, nullptr);
    if (n > 0) {
      std::vector<gid_t> more(static_cast<size_t>(n));
      n = ::getgroups(n, more.data());
      if (n > 0) out.insert(out.end(), more.begin(), more.begin() + n);
    }
    return out;
  }();
  return std::find(groups.begin(), groups.end(), gid) != groups.end();
}

FileInfo info_of(const struct stat& st) {
  FileInfo info;
  info.type = type_of(st.st_mode);
  info.size = static_cast<uint64_t>(st.st_size);
  info.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  info.device = static_cast<uint64_t>(st.st_dev);
  info.inode = static_cast<uint64_t>(st.st_ino);
  info.change_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  static const uid_t self = ::geteuid();  // cudnnup never changes its user or groups: asked once
  info.other_owner = st.st_uid != self;
  info.others_may_write = !S_ISLNK(st.st_mode) && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;  // a link's own mode means nothing
  mode_t our_bit = st.st_uid == self ? S_IWUSR : in_our_groups(st.st_gid) ? S_IWGRP : S_IWOTH;
  info.self_may_write = self == 0 || S_ISLNK(st.st_mode) || (st.st_mode & our_bit) != 0;
  return info;
}

// A file descriptor that closes itself.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  Fd(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_ = -1;
};

// Reads up to `max_bytes` from `offset` of an open file. `size_hint` > 0 (the file's size): at
// most that many bytes. Otherwise the buffer starts at `first_read` bytes and grows while the file
// goes on: a buffer sized by a generous cap is zero-filled in full, which for a small file costs
// more than the read.
Result<std::string> read_fd(int fd, const std::string& path, uint64_t offset, size_t max_bytes, uint64_t size_hint,
                            size_t first_read = 1 << 20) {
  size_t want = max_bytes;
  if (size_hint > 0) {
    uint64_t left = size_hint > offset ? size_hint - offset : 0;
    if (left < want) want = size_t(left);
    max_bytes = want;
  } else {
    want = std::min(max_bytes, first_read);  // grown below while the file goes on
  }
  std::string out;
  out.resize(want);
  size_t got = 0;
  while (got < max_bytes) {
    if (got == out.size()) out.resize(std::min(max_bytes, out.size() * 2 + 4096));
    ssize_t n = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("cannot read", path, errno);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

// Reads an open file or pipe front to back with read(2), up to max_bytes (one more byte is an
// error: the input is longer than the caller takes). `size_hint`: a regular file's size, so its
// buffer is made once (a pipe's grows).
Result<std::string> read_sequential(int fd, const std::string& path, size_t max_bytes, uint64_t size_hint = 0) {
  std::string out;
  if (size_hint > 0) out.resize(size_t(std::min<uint64_t>(size_hint, max_bytes)) + 1);
  size_t got = 0;
  while (true) {
    if (got == out.size()) out.resize(std::min(max_bytes + 1, out.size() * 2 + 65536));
    if (got == out.size()) break;  // max_bytes + 1 read: too long
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("cannot read", path, errno);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > max_bytes) return too_large_input(path, max_bytes);
  out.resize(got);
  return out;
}

Status write_all(int fd, const std::string& path, const std::string& contents) {
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("cannot write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return ok_status();
}

// The directory that holds `rel` below `root`, opened one component at a time without following
// a link (O_NOFOLLOW), and the last component's name: every call below acts relative to that
// directory, so what was checked is what is changed.
struct Parent {
  Fd dir;
  std::string name;
  std::string path;  // root/rel, for messages
};

Result<Parent> open_parent(const std::string& root, const std::string& rel) {
  if (auto s = check_stays_below(rel); !s) return s.error();
  Result<Parent> out = Parent{};
  Parent& p = *out;
  p.path = paths::join(root, rel);
  p.dir = Fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!p.dir.valid()) return errno_error("cannot open", root, errno);
  size_t pos = 0;
  std::string walked = root;
  for (size_t slash = rel.find('/'); slash != std::string::npos; pos = slash + 1, slash = rel.find('/', pos)) {
    std::string part = rel.substr(pos, slash - pos);
    walked = paths::join(walked, part);
    Fd next(::openat(p.dir.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      int err = errno;
      struct stat st;
      bool link = err == ELOOP ||
                  (err == ENOTDIR && ::fstatat(p.dir.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode));
      if (link) return make_error(ErrorCode::kPermission, walked + " is a link; cudnnup does not follow links below " + root, walked);
      return errno_error("cannot open", walked, err);
    }
    p.dir = std::move(next);
  }
  p.name = rel.substr(pos);
  return out;
}

Result<std::vector<DirEntry>> list_dir_fd(int fd, const std::string& path) {
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    int err = errno;
    ::close(fd);
    return errno_error("cannot list", path, err);
  }
  std::vector<DirEntry> entries;
  while (struct dirent* e = ::readdir(dir)) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    DirEntry entry;
    entry.name = e->d_name;
    switch (e->d_type) {
      case DT_REG: entry.type = FileType::kRegular; break;
      case DT_DIR: entry.type = FileType::kDirectory; break;
      case DT_LNK: entry.type = FileType::kSymlink; break;
      case DT_FIFO: entry.type = FileType::kFifo; break;
      case DT_UNKNOWN: {
        // Some filesystems do not fill d_type; ask.
        struct stat st;
        entry.type = ::fstatat(::dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? type_of(st.st_mode) : FileType::kOther;
        break;
      }
      default: entry.type = FileType::kOther;
    }
    entries.push_back(std::move(entry));
  }
  ::closedir(dir);  // closes fd
  return entries;
}

class PosixFileWriter final : public FileWriter {
 public:
  PosixFileWriter(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixFileWriter() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Status write(std::string_view bytes) override {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno_error("cannot write", path_, errno);
      }
      done += static_cast<size_t>(n);
    }
    written_ += bytes.size();
    if (written_ - writeback_from_ >= kWritebackStep) start_writeback();
    return ok_status();
  }
  Status close(bool sync) override {
    if (!sync) start_writeback();
    if (sync && ::fsync(fd_) != 0) return errno_error("cannot sync", path_, errno);
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) return errno_error("cannot close", path_, errno);
    return ok_status();
  }

 private:
  // Files written here are made durable later (fsync or syncfs before a commit). Starting their
  // writeback while the rest is still being written, as dpkg does, overlaps the disk's work with
  // ours, so that final sync waits for the tail only. A hint: errors show at the real sync.
  static constexpr off_t kWritebackStep = 8 << 20;
  void start_writeback() {
#ifdef __linux__
    if (written_ > writeback_from_) ::sync_file_range(fd_, writeback_from_, written_ - writeback_from_, SYNC_FILE_RANGE_WRITE);
#endif
    writeback_from_ = written_;
  }

  int fd_;
  std::string path_;
  off_t written_ = 0;
  off_t writeback_from_ = 0;
};

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<FileWriter>> create_file(const std::string& path) override {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno_error("cannot create", path, errno);
    return std::unique_ptr<FileWriter>(std::make_unique<PosixFileWriter>(fd, path));
  }

  Status sync_dir(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot open directory", path, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return errno_error("cannot sync directory", path, err);
    return ok_status();
  }

  Status sync_filesystem(const std::string& path) override {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot open", path, errno);
#ifdef __linux__
    int rc = ::syncfs(fd);
#else
    ::sync();
    int rc = 0;
#endif
    int err = errno;
    ::close(fd);
    if (rc != 0) return errno_error("cannot sync the filesystem of", path, err);
    return ok_status();
  }

  Result<FileInfo> stat(const std::string& path) const override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return errno_error("cannot stat", path, errno);
    return info_of(st);
  }

  Result<FileInfo> lstat(const std::string& path) const override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return errno_error("cannot stat", path, errno);
    return info_of(st);
  }

  Result<std::vector<DirEntry>> list_dir(const std::string& path) const override {
    int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno_error("cannot list", path, errno);
    return list_dir_fd(fd, path);
  }

  Result<std::string> read_link(const std::string& path) const override {
    char buf[PATH_MAX];
    ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    if (n < 0) return errno_error("cannot read link", path, errno);
    return std::string(buf, static_cast<size_t>(n));
  }

  Result<std::string> read_range(const std::string& path, uint64_t offset,
                                 size_t max_bytes) const override {
    // O_NONBLOCK: a FIFO put where a file is expected (a planted .cudnn-version, a name doctor
    // scans) must not block; pread on it then fails (ESPIPE). Regular files ignore the flag.
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (!fd.valid()) return errno_error("cannot open", path, errno);
    // Size the buffer by what the file holds, not by the caller's cap: callers pass generous
    // caps (16 MiB) and zero-filling those for every small file dominated doctor's run time.
    // Files under /proc report size 0 but have contents: for them, read up to the cap.
    struct stat st = {};
    uint64_t hint = ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? uint64_t(st.st_size) : 0;
    return read_fd(fd.get(), path, offset, max_bytes, hint);
  }

  Result<std::string> read_stream(const std::string& path, size_t max_bytes) const override {
    // Blocking, unlike read_range: the user named this input, a pipe's writer is theirs.
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
    if (!fd.valid()) return errno_error("cannot open", path, errno);
    struct stat st = {};
    bool known = ::fstat(fd.get(), &st) == 0;
    if (known && S_ISDIR(st.st_mode)) return make_error(ErrorCode::kUsage, path + " is a folder, not a file", path);
    return read_sequential(fd.get(), path, max_bytes, known && S_ISREG(st.st_mode) && st.st_size > 0 ? uint64_t(st.st_size) : 0);
  }

  Result<FileContents> read_regular(const std::string& path, size_t max_bytes, bool follow_link) const override {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused just below).
    Fd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow_link ? 0 : O_NOFOLLOW)));
    if (!fd.valid()) {
      if (errno == ELOOP && !follow_link) return make_error(ErrorCode::kCorrupt, path + " is a link", path);
      return errno_error("cannot open", path, errno);
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat", path, errno);
    if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::kCorrupt, path + " is not a regular file", path);
    // The buffer starts at the size fstat saw plus one byte, which tells a file that grew past the
    // cap. /proc files say 0 and are short (the buffer grows for a long one).
    size_t first_read = st.st_size > 0 ? size_t(std::min<uint64_t>(uint64_t(st.st_size), max_bytes)) + 1 : 4096;
    auto bytes = read_fd(fd.get(), path, 0, max_bytes + 1, 0, first_read);
    if (!bytes) return bytes.error();
    if (bytes->size() > max_bytes) {
      return make_error(ErrorCode::kCorrupt, path + " is larger than " + std::to_string(max_bytes) + " bytes", path);
    }
    return FileContents{info_of(st), std::move(*bytes)};
  }

  Result<std::string> canonical(const std::string& path) const override {
    char buf[PATH_MAX];
    if (!::realpath(path.c_str(), buf)) return errno_error("cannot resolve", path, errno);
    return std::string(buf);
  }

  Status make_dir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      return errno_error("cannot create directory", path, errno);
    }
    return ok_status();
  }

  Status write_file(const std::string& path, const std::string& contents, bool sync) override {
    return write_with_mode(path, contents, sync, 0644, false);
  }

  Status write_private_file(const std::string& path, const std::string& contents, bool sync) override {
    return write_with_mode(path, contents, sync, 0600, true);
  }

  Status rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return errno_error("cannot rename " + from + " to", to, errno);
    return ok_status();
  }

  Status remove(const std::string& path) override {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return errno_error("cannot remove", path, errno);
    int rc = S_ISDIR(st.st_mode) ? ::rmdir(path.c_str()) : ::unlink(path.c_str());
    if (rc != 0) return errno_error("cannot remove", path, errno);
    return ok_status();
  }

  Status symlink(const std::string& target, const std::string& link) override {
    if (::symlink(target.c_str(), link.c_str()) != 0) return errno_error("cannot create link", link, errno);
    return ok_status();
  }

  // A plain symlink: POSIX needs no rights for it (Windows makes a junction instead).
  Status create_dir_link(const std::string& target, const std::string& link) override { return symlink(target, link); }

  Result<FileInfo> lstat_below(const std::string& root, const std::string& rel) const override {
    auto p = open_parent(root, rel);
    if (!p) return p.error();
    struct stat st;
    if (::fstatat(p->dir.get(), p->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno_error("cannot stat", p->path, errno);
    return info_of(st);
  }

  Result<std::vector<DirEntry>> list_dir_below(const std::string& root, const std::string& rel) const override {
    auto p = open_parent(root, rel);
    if (!p) return p.error();
    int fd = ::openat(p->dir.get(), p->name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      if (errno == ELOOP) return make_error(ErrorCode::kPermission, p->path + " is a link, not a directory", p->path);
      return errno_error("cannot list", p->path, errno);
    }
    return list_dir_fd(fd, p->path);
  }

  Result<std::string> read_link_below(const std::string& root, const std::string& rel) const override {
    auto p = open_parent(root, rel);
    if (!p) return p.error();
    char buf[PATH_MAX];
    ssize_t n = ::readlinkat(p->dir.get(), p->name.c_str(), buf, sizeof buf);
    if (n < 0) return errno_error("cannot read link", p->path, errno);
    return std::string(buf, static_cast<size_t>(n));
  }

  Result<std::string> read_below(const std::string& root, const std::string& rel, uint64_t offset,
                                 size_t max_bytes) const override {
    auto p = open_parent(root, rel);
    if (!p) return p.error();
    Fd fd(::openat(p->dir.get(), p->name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) {
      if (errno == ELOOP) return make_error(ErrorCode::kPermission, p->path + " is a link; it is not followed", p->path);
      return errno_error("cannot open", p->path, errno);
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat", p->path, errno);
    if (!S_ISREG(st.st_mode)) return make_error(ErrorCode::kPermission, p->path + " is not a regular file", p->path);
    return read_fd(fd.get(), p->path, offset, max_bytes, st.st_size > 0 ? uint64_t(st.st_size) : 0);
  }

  Status make_dir_below(const std::string& root, const std::string& rel) override {
    auto p = open_parent(root, rel);
    if (!p) return p.error();
    if (::mkdirat(p->dir.get(), p->name.c_str(), 0755) == 0) return ok_status();
    int err = errno;
    struct stat st;
    if (err == EEXIST && ::fstatat(p->dir.get(), p->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
      return ok_status();
    }
    return errno_error("cannot create directory", p->path, err);
  }

  Status rename_below(const std::string& root, const std::string& from_rel, const std::string& to_rel) override {
    auto from = open_parent(root, from_rel);
    if (!from) return from.error();
    auto to = open_parent(root, to_rel);
    if (!to) return to.error();
    if (::renameat(from->dir.get(), from->name.c_str(), to->dir.get(), to->name.c_str()) != 0) {
      return errno_error("cannot rename " + from->path + " to", to->path, errno);
    }
    return ok_status();
  }

  Status remove_below(const std::string& root, const std::string& rel) override {
    auto p = open_parent(root, rel);
    if (!p) return p.error();
    struct stat st;
    if (::fstatat(p->dir.get(), p->name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return errno_error("cannot remove", p->path, errno);
    if (::unlinkat(p->dir.get(), p->name.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) != 0) {
      return errno_error("cannot remove", p->path, errno);
    }
    return ok_status();
  }

  Status symlink_below(const std::string& root, const std::string& target, const std::string& rel) override {
    auto p = open_parent(root, rel);
    if (!p) return p.error();
    if (::symlinkat(target.c_str(), p->dir.get(), p->name.c_str()) != 0) return errno_error("cannot create link", p->path, errno);
    return ok_status();
  }

 private:
  static Status write_with_mode(const std::string& path, const std::string& contents, bool sync, mode_t mode, bool exact) {
    Fd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (exact ? O_NOFOLLOW : 0), mode));
    if (!fd.valid()) return errno_error("cannot create", path, errno);
    // An existing file keeps its mode through O_TRUNC; a private one is made private again.
    if (exact && ::fchmod(fd.get(), mode) != 0) return errno_error("cannot set the permissions of", path, errno);
    if (auto s = write_all(fd.get(), path, contents); !s) return s;
    if (sync && ::fsync(fd.get()) != 0) return errno_error("cannot sync", path, errno);
    if (::close(fd.release()) != 0) return errno_error("cannot close", path, errno);
    return ok_status();
  }
};

}  // namespace

std::unique_ptr<FileSystem> make_real_filesystem() { return std::make_unique<PosixFileSystem>(); }

Result<std::string> read_standard_input(size_t max_bytes) {
  struct stat st = {};
  if (::fstat(STDIN_FILENO, &st) != 0) return errno_error("cannot read", "standard input", errno);
  if (S_ISDIR(st.st_mode)) return make_error(ErrorCode::kUsage, "standard input is a folder, not a file or a pipe");
  return read_sequential(STDIN_FILENO, "standard input", max_bytes);
}

}  // namespace cudnnup
