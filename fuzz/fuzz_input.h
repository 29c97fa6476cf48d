// Small helpers shared by the fuzz targets: the fuzzer's bytes as text, and an oracle's abort.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace cudnnup::fuzz {

inline std::string_view bytes_of(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// An oracle failed: say why and abort, so libFuzzer records the input as a crash.
[[noreturn]] inline void violation(const std::string& what) {
  std::fprintf(stderr, "fuzz oracle violated: %s\n", what.c_str());
  std::abort();
}

}  // namespace cudnnup::fuzz
