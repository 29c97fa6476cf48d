#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "platform/file_lock.h"

namespace cudnnup {

Result<FileLock> FileLock::acquire(const std::string& path, bool wait) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    ErrorCode code = errno == EACCES || errno == EPERM || errno == EROFS ? ErrorCode::kPermission : ErrorCode::kIo;
    return make_error(code, "cannot open lock file " + path + ": " + strerror(errno), path);
  }
  while (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return make_error(ErrorCode::kConflict,
                        "another cudnnup is changing this installation (lock " + path + " is held); wait for it to finish",
                        path);
    }
    return make_error(ErrorCode::kIo, "cannot lock " + path + ": " + strerror(err), path);
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (handle_ != kNone) ::close(static_cast<int>(handle_));
}

}  // namespace cudnnup
