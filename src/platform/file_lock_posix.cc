#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/file_lock.h"

namespace cudnnup {

Result<FileLock> FileLock::acquire(const std::string& path, bool wait) {
  while (true) {
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
      ErrorCode code = errno == EACCES || errno == EPERM || errno == EROFS ? ErrorCode::kPermission : ErrorCode::kIo;
      return make_error(code, "cannot open lock file " + path + ": " + strerror(errno), path);
    }
    int rc;
    while ((rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
      int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) {
        return make_error(ErrorCode::kConflict,
                          "another cudnnup is changing this installation (lock " + path + " is held); wait for it to finish",
                          path);
      }
      return make_error(ErrorCode::kIo, "cannot lock " + path + ": " + strerror(err), path);
    }
    // The holder before us may have deleted the file on release (remove_at_release): then we
    // hold a lock on a file nobody else can find, and must lock the one at the path instead.
    struct stat held, named;
    if (::fstat(fd, &held) == 0 && ::lstat(path.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
        held.st_ino == named.st_ino) {
      return FileLock(fd, path);
    }
    ::close(fd);
  }
}

Result<FileLock> FileLock::acquire_dir(const std::string& dir, bool wait) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    ErrorCode code = errno == EACCES || errno == EPERM ? ErrorCode::kPermission : errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo;
    return make_error(code, "cannot open " + dir + " to lock it: " + strerror(errno), dir);
  }
  int rc;
  while ((rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB))) != 0 && errno == EINTR) {
  }
  if (rc == 0) return FileLock(fd, dir);
  int err = errno;
  ::close(fd);
  if (err == EWOULDBLOCK) {
    return make_error(ErrorCode::kConflict,
                      "another cudnnup is changing " + dir + " (it holds a lock on it); wait for it to finish", dir);
  }
  if (err == EBADF || err == ENOLCK || err == EOPNOTSUPP || err == EINVAL) {
    // NFS emulates flock with byte-range locks, which a directory opened read-only cannot take.
    auto file = acquire(dir + "/.cudnnup-lock", wait);
    if (file) file->remove_at_release(true);
    return file;
  }
  return make_error(ErrorCode::kIo, "cannot lock " + dir + ": " + strerror(err), dir);
}

void FileLock::release() {
  if (handle_ == kNone) return;
  if (remove_at_release_) ::unlink(path_.c_str());  // still held: nobody can lock it in between
  ::close(static_cast<int>(handle_));
  handle_ = kNone;
}

}  // namespace cudnnup
