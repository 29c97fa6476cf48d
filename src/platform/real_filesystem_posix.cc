#include <dirent.h>

#include <algorithm>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
  return FileType::kOther;
}

FileInfo info_of(const struct stat& st) {
  FileInfo info;
  info.type = type_of(st.st_mode);
  info.size = static_cast<uint64_t>(st.st_size);
  info.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return info;
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
    DIR* dir = ::opendir(path.c_str());
    if (!dir) return errno_error("cannot list", path, errno);
    std::vector<DirEntry> entries;
    while (struct dirent* e = ::readdir(dir)) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      DirEntry entry;
      entry.name = e->d_name;
      switch (e->d_type) {
        case DT_REG: entry.type = FileType::kRegular; break;
        case DT_DIR: entry.type = FileType::kDirectory; break;
        case DT_LNK: entry.type = FileType::kSymlink; break;
        case DT_UNKNOWN: {
          // Some filesystems do not fill d_type; ask.
          struct stat st;
          std::string full = path + "/" + entry.name;
          entry.type = ::lstat(full.c_str(), &st) == 0 ? type_of(st.st_mode) : FileType::kOther;
          break;
        }
        default: entry.type = FileType::kOther;
      }
      entries.push_back(std::move(entry));
    }
    ::closedir(dir);
    return entries;
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
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return errno_error("cannot open", path, errno);
    // Size the buffer by what the file holds, not by the caller's cap: callers pass generous
    // caps (16 MiB) and zero-filling those for every small file dominated doctor's run time.
    struct stat st = {};
    size_t want = max_bytes;
    // Files under /proc report size 0 but have contents: for them, read up to the cap.
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      uint64_t left = uint64_t(st.st_size) > offset ? uint64_t(st.st_size) - offset : 0;
      if (left < want) want = size_t(left);
    } else {
      want = std::min<size_t>(max_bytes, 1 << 20);  // grown below if the file is longer
    }
    std::string out;
    out.resize(want);
    if (st.st_size > 0) max_bytes = want;
    size_t got = 0;
    while (got < max_bytes) {
      if (got == out.size()) out.resize(std::min(max_bytes, out.size() * 2 + 4096));
      ssize_t n = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(offset + got));
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return errno_error("cannot read", path, err);
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    ::close(fd);
    out.resize(got);
    return out;
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
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return errno_error("cannot create", path, errno);
    size_t done = 0;
    while (done < contents.size()) {
      ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        int err = errno;
        ::close(fd);
        return errno_error("cannot write", path, err);
      }
      done += static_cast<size_t>(n);
    }
    if (sync && ::fsync(fd) != 0) {
      int err = errno;
      ::close(fd);
      return errno_error("cannot sync", path, err);
    }
    if (::close(fd) != 0) return errno_error("cannot close", path, errno);
    return ok_status();
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
};

}  // namespace

std::unique_ptr<FileSystem> make_real_filesystem() { return std::make_unique<PosixFileSystem>(); }

}  // namespace cudnnup
