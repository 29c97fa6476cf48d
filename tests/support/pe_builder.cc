#include "support/pe_builder.h"

#include <cstring>

namespace cudnnup::testing {
namespace {

void put16(std::string& b, size_t at, uint16_t v) { std::memcpy(&b[at], &v, 2); }
void put32(std::string& b, size_t at, uint32_t v) { std::memcpy(&b[at], &v, 4); }

}  // namespace

std::string build_pe_dll(uint16_t machine, const std::vector<std::string>& imports) {
  constexpr size_t kPe = 64, kOptional = kPe + 24, kOptionalSize = 240, kSections = kOptional + kOptionalSize;
  constexpr uint32_t kRawOffset = 0x200, kRva = 0x1000;
  // Section: import descriptors (one per DLL + the zero terminator), then the names.
  std::string section((imports.size() + 1) * 20, '\0');
  std::vector<uint32_t> name_rvas;
  for (const auto& name : imports) {
    name_rvas.push_back(kRva + uint32_t(section.size()));
    section += name;
    section += '\0';
  }
  for (size_t i = 0; i < imports.size(); ++i) put32(section, i * 20 + 12, name_rvas[i]);
  section.resize((section.size() + 0x1ff) & ~size_t(0x1ff), '\0');

  std::string b(kRawOffset, '\0');
  b[0] = 'M';
  b[1] = 'Z';
  put32(b, 0x3c, kPe);
  std::memcpy(&b[kPe], "PE\0\0", 4);
  put16(b, kPe + 4, machine);
  put16(b, kPe + 6, 1);                // one section
  put16(b, kPe + 20, kOptionalSize);   // SizeOfOptionalHeader
  put16(b, kPe + 22, 0x2022);          // DLL | LARGE_ADDRESS_AWARE | EXECUTABLE_IMAGE
  put16(b, kOptional, 0x20b);          // PE32+
  put32(b, kOptional + 108, 16);       // NumberOfRvaAndSizes
  put32(b, kOptional + 112 + 8, kRva);  // import directory
  put32(b, kOptional + 112 + 12, uint32_t((imports.size() + 1) * 20));
  std::memcpy(&b[kSections], ".idata\0\0", 8);
  put32(b, kSections + 8, uint32_t(section.size()));
  put32(b, kSections + 12, kRva);
  put32(b, kSections + 16, uint32_t(section.size()));
  put32(b, kSections + 20, kRawOffset);
  return b + section;
}

}  // namespace cudnnup::testing
