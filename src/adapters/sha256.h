// SHA-256 through OpenSSL, fed in chunks so large files are hashed while they stream.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/filesystem.h"

namespace cudnnup {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view bytes);
  std::string hex_digest();  // finishes the hash; lower-case hex

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Hashes a file read through the FileSystem in 1 MiB chunks.
Result<std::string> sha256_file(const FileSystem& fs, const std::string& path);

}  // namespace cudnnup
