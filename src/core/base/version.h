// Dotted version numbers: cuDNN (9.1.0.70), CUDA (13.0), driver (580.159.04).
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudnnup {

struct Version {
  std::vector<int> parts;  // empty means "unknown"

  static std::optional<Version> parse(std::string_view text);  // "9.1.0.70", "580.159.04"
  Version() = default;
  Version(std::initializer_list<int> p) : parts(p) {}

  bool known() const { return !parts.empty(); }
  int at(size_t i) const { return i < parts.size() ? parts[i] : 0; }
  int major() const { return at(0); }
  int minor() const { return at(1); }
  int patch() const { return at(2); }
  std::string str() const;                // "9.1.0.70"; driver parts keep their zero padding lost
  Version truncated(size_t n) const;      // first n parts

  // Compares part by part; missing parts count as 0, so 9.1 == 9.1.0.
  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const { return (*this <=> other) == 0; }
  // True when every part given in `prefix` matches: 9.1 is a prefix of 9.1.0.70.
  bool has_prefix(const Version& prefix) const;
};

// True when `a` and `b` name one release: one is the other, or a prefix of it with at least
// major.minor.patch. A library, a report or a toolkit often knows only 9.19.0 of 9.19.0.56.
bool versions_name_each_other(const Version& a, const Version& b);

// cudnnGetVersion() / CUDNN_VERSION: 9.x encodes M*10000+m*100+p, earlier M*1000+m*100+p.
Version decode_cudnn_version_number(long long value);
// CUDART_VERSION / cudnnGetCudartVersion() / cuDriverGetVersion(): 1000*major + 10*minor.
Version decode_cuda_version_number(long long value);

}  // namespace cudnnup
