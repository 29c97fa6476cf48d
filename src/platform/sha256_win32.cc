// Sha256 on Windows: the OS's own CNG (BCrypt) provider, so the Windows build needs no OpenSSL.
// The interface is adapters/sha256.h (Linux: adapters/sha256_openssl.cc).
#include <windows.h>
#include <bcrypt.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "platform/sha256.h"

namespace cudnnup {

struct Sha256::State {
  BCRYPT_ALG_HANDLE alg = nullptr;
  BCRYPT_HASH_HANDLE hash = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  // BCRYPT_HASH_REUSABLE_FLAG is not needed: one object hashes one stream. A failure here means
  // the system's crypto provider is broken; hashing would silently be wrong, so stop.
  if (BCryptOpenAlgorithmProvider(&state_->alg, BCRYPT_SHA256_ALGORITHM, nullptr, 0) != 0 ||
      BCryptCreateHash(state_->alg, &state_->hash, nullptr, 0, nullptr, 0, 0) != 0) {
    std::abort();
  }
}

Sha256::~Sha256() {
  if (state_->hash) BCryptDestroyHash(state_->hash);
  if (state_->alg) BCryptCloseAlgorithmProvider(state_->alg, 0);
}

void Sha256::update(std::string_view bytes) {
  // BCryptHashData takes a ULONG length: feed at most 1 GiB at a time.
  while (!bytes.empty()) {
    ULONG n = static_cast<ULONG>(std::min<size_t>(bytes.size(), size_t(1) << 30));
    BCryptHashData(state_->hash, reinterpret_cast<PUCHAR>(const_cast<char*>(bytes.data())), n, 0);
    bytes.remove_prefix(n);
  }
}

std::string Sha256::hex_digest() {
  unsigned char md[32];
  if (BCryptFinishHash(state_->hash, md, sizeof md, 0) != 0) std::abort();
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : md) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

}  // namespace cudnnup
