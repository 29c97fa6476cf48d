// The child's end of the event channel its parent opened (ProcessOptions::event_channel_placeholder,
// core/child/protocol.h): events go there, apart from stdout/stderr, which loaded libraries use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace cudnnup {

class EventChannel {
 public:
  // `id` as the parent passed it (a file descriptor number on POSIX, a handle value on Windows),
  // or "-" for this process's stdout.
  static Result<EventChannel> open(const std::string& id);
  // Writes all of `bytes` (one or more whole lines); false when the parent is gone.
  bool write(std::string_view bytes) const;

 private:
  explicit EventChannel(intptr_t handle) : handle_(handle) {}
  intptr_t handle_ = -1;
};

}  // namespace cudnnup
