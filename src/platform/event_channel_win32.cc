#include <windows.h>

#include <stdexcept>

#include "platform/event_channel.h"

#include "base/numbers.h"

namespace cudnnup {

Result<EventChannel> EventChannel::open(const std::string& id) {
  if (id == "-") return EventChannel(reinterpret_cast<intptr_t>(GetStdHandle(STD_OUTPUT_HANDLE)));
  uint64_t value = checked_unsigned(id, UINTPTR_MAX).value_or(0);
  HANDLE h = reinterpret_cast<HANDLE>(static_cast<uintptr_t>(value));
  DWORD flags = 0;
  if (value == 0 || !GetHandleInformation(h, &flags)) {
    return make_error(ErrorCode::kUsage, "no event channel '" + id + "' (cudnnup starts this command itself)");
  }
  // Not for anything this process starts.
  SetHandleInformation(h, HANDLE_FLAG_INHERIT, 0);
  return EventChannel(static_cast<intptr_t>(value));
}

bool EventChannel::write(std::string_view bytes) const {
  HANDLE h = reinterpret_cast<HANDLE>(handle_);
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    DWORD n = 0;
    if (!WriteFile(h, p, static_cast<DWORD>(left > (1u << 30) ? (1u << 30) : left), &n, nullptr) || n == 0) return false;
    p += n;
    left -= n;
  }
  return true;
}

}  // namespace cudnnup
