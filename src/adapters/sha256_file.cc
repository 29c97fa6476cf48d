#include "platform/sha256.h"

namespace cudnnup {

namespace {

template <typename Read>
Result<std::string> sha256_chunks(Read&& read) {
  Sha256 h;
  uint64_t offset = 0;
  while (true) {
    auto chunk = read(offset, size_t(1) << 20);
    if (!chunk) return chunk.error();
    if (chunk->empty()) break;
    h.update(*chunk);
    offset += chunk->size();
  }
  return h.hex_digest();
}

}  // namespace

Result<std::string> sha256_file(const FileSystem& fs, const std::string& path) {
  return sha256_chunks([&](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); });
}

Result<std::string> sha256_file_below(const FileSystem& fs, const std::string& root, const std::string& rel) {
  return sha256_chunks([&](uint64_t offset, size_t n) { return fs.read_below(root, rel, offset, n); });
}

}  // namespace cudnnup
