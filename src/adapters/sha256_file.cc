#include "platform/sha256.h"

namespace cudnnup {

Result<std::string> sha256_file(const FileSystem& fs, const std::string& path) {
  Sha256 h;
  uint64_t offset = 0;
  while (true) {
    auto chunk = fs.read_range(path, offset, 1 << 20);
    if (!chunk) return chunk.error();
    if (chunk->empty()) break;
    h.update(*chunk);
    offset += chunk->size();
  }
  return h.hex_digest();
}

}  // namespace cudnnup
