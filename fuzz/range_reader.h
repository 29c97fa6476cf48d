// The fuzzer's bytes as the RangeReader the ELF and PE parsers read through.
#pragma once

#include <string>
#include <string_view>

#include "binfmt/elf.h"  // RangeReader

namespace cudnnup::fuzz {

inline RangeReader reader_over(std::string_view bytes) {
  return [bytes](uint64_t offset, size_t n) -> Result<std::string> {
    if (offset >= bytes.size()) return std::string();
    return std::string(bytes.substr(static_cast<size_t>(offset), n));
  };
}

}  // namespace cudnnup::fuzz
