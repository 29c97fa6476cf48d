// SHA-256, fed in chunks so large files are hashed while they stream. A service of the OS where
// the OS has one: Windows' own CNG (BCrypt, platform/sha256_win32.cc), so the Windows build needs
// no OpenSSL. Linux has no system hashing API, so there the adapter over OpenSSL defines it
// (adapters/sha256_openssl.cc); the build picks one. sha256_file() is in adapters/sha256_file.cc.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/filesystem.h"

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
// The same for a regular file below a root, read without passing through a link (read_below).
Result<std::string> sha256_file_below(const FileSystem& fs, const std::string& root, const std::string& rel);

}  // namespace cudnnup
