#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "platform/event_channel.h"

#include "base/numbers.h"

namespace cudnnup {

Result<EventChannel> EventChannel::open(const std::string& id) {
  if (id == "-") return EventChannel(1);
  int fd = checked_int(id).value_or(-1);
  if (fd < 0 || fcntl(fd, F_GETFD) < 0) {
    return make_error(ErrorCode::kUsage, "no event channel '" + id + "' (cudnnup starts this command itself)");
  }
  // Not for anything this process starts.
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return EventChannel(fd);
}

bool EventChannel::write(std::string_view bytes) const {
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::write(static_cast<int>(handle_), p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace cudnnup
