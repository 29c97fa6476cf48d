// Reading little-endian integers out of a file's bytes (ELF, PE, ld.so.cache). Every platform
// cuDNN ships for (x86_64, sbsa, aarch64, ppc64le) and every host cudnnup runs on is
// little-endian, so a memcpy is the whole conversion.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace cudnnup {

// The T stored at `offset`, or T{} when the bytes end first: a truncated file reads as zeros,
// which the callers' own bounds checks then reject, never as a read past the buffer.
template <typename T>
T load_le(std::string_view bytes, size_t offset) {
  T value{};
  if (offset <= bytes.size() && sizeof(T) <= bytes.size() - offset) std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

}  // namespace cudnnup
