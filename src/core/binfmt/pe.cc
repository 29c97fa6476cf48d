#include "binfmt/pe.h"

#include <algorithm>
#include <cstring>

#include "binfmt/little_endian.h"

namespace cudnnup {
namespace {

constexpr uint16_t kFileDll = 0x2000;  // IMAGE_FILE_DLL
constexpr uint16_t kMagicPe32 = 0x10b, kMagicPe32Plus = 0x20b;
constexpr size_t kDirImport = 1, kDirResource = 2, kDirDelayImport = 13;
constexpr uint32_t kRtVersion = 16;  // RT_VERSION
constexpr uint32_t kFixedFileInfoSignature = 0xFEEF04BD;
constexpr size_t kMaxPeSections = 96;   // the PE format's own limit
constexpr size_t kMaxImports = 4096;  // far more than any real DLL
constexpr size_t kMaxVersionInfoBytes = 64 << 10;
constexpr size_t kMaxResourceEntries = 1024;

struct Section {
  std::string name;
  uint32_t virtual_size, virtual_address, raw_size, raw_offset;
};

struct DataDir {
  uint32_t rva = 0, size = 0;
};

// UTF-16LE (as stored in resources) to UTF-8; unpaired surrogates become U+FFFD.
std::string utf16le_to_utf8(const std::string& bytes, size_t offset, size_t units) {
  std::string out;
  auto unit = [&](size_t i) { return load_le<uint16_t>(bytes, offset + 2 * i); };
  for (size_t i = 0; i < units; ++i) {
    uint32_t cp = unit(i);
    if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < units && unit(i + 1) >= 0xDC00 && unit(i + 1) <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (unit(i + 1) - 0xDC00);
      ++i;
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
      cp = 0xFFFD;
    }
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  return out;
}

class PeReader {
 public:
  PeReader(const RangeReader& read, uint64_t file_size, PeInfo& info)
      : read_(read), file_size_(file_size), info_(info) {}

  Status parse() {
    if (file_size_ == 0) return make_error(ErrorCode::kCorrupt, "the file is empty (0 bytes)");
    auto dos = read_(0, 64);
    if (!dos) return dos.error();
    if (dos->size() < 2 || dos->compare(0, 2, "MZ") != 0) {
      return make_error(ErrorCode::kCorrupt, "not a PE file (no MZ header)");
    }
    if (dos->size() < 64) return make_error(ErrorCode::kCorrupt, "truncated: the DOS header is cut short");
    uint32_t pe_offset = load_le<uint32_t>(*dos, 0x3c);
    if (pe_offset + 24ull > file_size_) {
      return make_error(ErrorCode::kCorrupt, "truncated or not a PE file: the PE header would start at byte " +
                                                 std::to_string(pe_offset) + " of " + std::to_string(file_size_));
    }
    auto nt = read_(pe_offset, 24 + 240);  // signature + COFF header + the largest optional header
    if (!nt) return nt.error();
    const std::string& h = *nt;
    if (h.size() < 24 || h.compare(0, 4, std::string("PE\0\0", 4)) != 0) {
      return make_error(ErrorCode::kCorrupt, "not a PE file (MZ header without a PE signature: a DOS program?)");
    }
    info_.machine = load_le<uint16_t>(h, 4);
    uint16_t section_count = load_le<uint16_t>(h, 6);
    uint16_t optional_size = load_le<uint16_t>(h, 20);
    uint16_t characteristics = load_le<uint16_t>(h, 22);
    info_.is_dll = (characteristics & kFileDll) != 0;
    if (h.size() < 24u + optional_size) {
      return make_error(ErrorCode::kCorrupt, "truncated: the optional header is cut short");
    }
    uint16_t magic = load_le<uint16_t>(h, 24);
    if (magic != kMagicPe32 && magic != kMagicPe32Plus) {
      return make_error(ErrorCode::kCorrupt, "not a PE image (optional header magic " + std::to_string(magic) + ")");
    }
    info_.pe32_plus = magic == kMagicPe32Plus;
    if (info_.pe32_plus != (info_.machine == kPeMachineX64 || info_.machine == kPeMachineArm64)) {
      info_.problems.push_back("inconsistent headers: machine " + pe_machine_name(info_.machine) + " with a " +
                               (info_.pe32_plus ? "64-bit" : "32-bit") + " optional header");
    }
    size_t count_at = 24 + (info_.pe32_plus ? 108 : 92);
    size_t dirs_at = count_at + 4;
    uint32_t dir_count = load_le<uint32_t>(h, count_at);
    for (size_t i = 0; i < 16 && i < dir_count; ++i) {
      size_t at = dirs_at + 8 * i;
      if (at + 8 > 24u + optional_size) break;
      dirs_[i] = {load_le<uint32_t>(h, at), load_le<uint32_t>(h, at + 4)};
    }

    if (section_count > kMaxPeSections) {
      info_.problems.push_back("corrupt: " + std::to_string(section_count) + " sections");
      section_count = 0;
    }
    uint64_t sections_at = uint64_t(pe_offset) + 24 + optional_size;
    auto table = read_(sections_at, size_t(section_count) * 40);
    if (!table) return table.error();
    if (table->size() < size_t(section_count) * 40) {
      return make_error(ErrorCode::kCorrupt, "truncated: the section table is cut short");
    }
    for (size_t i = 0; i < section_count; ++i) {
      size_t at = i * 40;
      Section s;
      s.name = table->substr(at, 8);
      s.name = s.name.substr(0, s.name.find('\0'));
      s.virtual_size = load_le<uint32_t>(*table, at + 8);
      s.virtual_address = load_le<uint32_t>(*table, at + 12);
      s.raw_size = load_le<uint32_t>(*table, at + 16);
      s.raw_offset = load_le<uint32_t>(*table, at + 20);
      // A copy cut short (failed download, full disk) loses its last sections' bytes.
      uint64_t end = uint64_t(s.raw_offset) + s.raw_size;
      if (s.raw_size > 0 && end > file_size_) {
        info_.problems.push_back("truncated: section " + s.name + " ends at byte " + std::to_string(end) +
                                 " but the file has " + std::to_string(file_size_) + " bytes");
      }
      sections_.push_back(std::move(s));
    }
    read_imports();
    read_delay_imports();
    read_version_resource();
    return ok_status();
  }

 private:
  // File offset of an RVA, when some section's raw data holds it.
  std::optional<uint64_t> offset_of(uint32_t rva) const {
    for (const auto& s : sections_) {
      uint32_t span = s.raw_size;
      if (rva >= s.virtual_address && rva - s.virtual_address < span) {
        return uint64_t(s.raw_offset) + (rva - s.virtual_address);
      }
    }
    return std::nullopt;
  }

  Result<std::string> read_rva(uint32_t rva, size_t n) const {
    auto off = offset_of(rva);
    if (!off) return make_error(ErrorCode::kCorrupt, "address outside every section");
    return read_(*off, n);
  }

  std::optional<std::string> read_name(uint32_t rva) const {
    auto bytes = read_rva(rva, 260);
    if (!bytes) return std::nullopt;
    size_t end = bytes->find('\0');
    if (end == std::string::npos || end == 0) return std::nullopt;
    return bytes->substr(0, end);
  }

  void read_imports() {
    const DataDir& dir = dirs_[kDirImport];
    if (dir.rva == 0 || dir.size == 0) return;
    for (size_t i = 0; i < kMaxImports; ++i) {
      auto desc = read_rva(dir.rva + uint32_t(i * 20), 20);
      if (!desc || desc->size() < 20) {
        info_.problems.push_back("truncated: the import table cannot be read whole");
        return;
      }
      uint32_t name_rva = load_le<uint32_t>(*desc, 12);
      if (desc->find_first_not_of('\0') == std::string::npos) return;  // the all-zero terminator
      auto name = read_name(name_rva);
      if (!name) {
        info_.problems.push_back("corrupt: import entry " + std::to_string(i) + " has an unreadable DLL name");
        continue;
      }
      info_.imports.push_back(*name);
    }
  }

  void read_delay_imports() {
    const DataDir& dir = dirs_[kDirDelayImport];
    if (dir.rva == 0 || dir.size == 0) return;
    for (size_t i = 0; i < kMaxImports; ++i) {
      auto desc = read_rva(dir.rva + uint32_t(i * 32), 32);
      if (!desc || desc->size() < 32) return;
      if (desc->find_first_not_of('\0') == std::string::npos) return;
      if (auto name = read_name(load_le<uint32_t>(*desc, 4))) info_.delay_imports.push_back(*name);
    }
  }

  // The resource tree is type -> name -> language -> data. We want the first RT_VERSION leaf.
  void read_version_resource() {
    const DataDir& dir = dirs_[kDirResource];
    if (dir.rva == 0 || dir.size == 0) return;
    uint32_t base = dir.rva;
    auto entries_of = [&](uint32_t dir_offset) -> std::vector<std::pair<uint32_t, uint32_t>> {
      std::vector<std::pair<uint32_t, uint32_t>> out;  // (id or name, offset-to-data)
      auto head = read_rva(base + dir_offset, 16);
      if (!head || head->size() < 16) return out;
      size_t n = size_t(load_le<uint16_t>(*head, 12)) + load_le<uint16_t>(*head, 14);
      if (n > kMaxResourceEntries) return out;
      auto list = read_rva(base + dir_offset + 16, n * 8);
      if (!list) return out;
      for (size_t i = 0; i + 1 <= n && (i + 1) * 8 <= list->size(); ++i) {
        out.emplace_back(load_le<uint32_t>(*list, i * 8), load_le<uint32_t>(*list, i * 8 + 4));
      }
      return out;
    };
    constexpr uint32_t kSubdir = 0x80000000u;
    for (auto [type, type_off] : entries_of(0)) {
      if (type != kRtVersion || !(type_off & kSubdir)) continue;
      for (auto [name, name_off] : entries_of(type_off & ~kSubdir)) {
        (void)name;
        if (!(name_off & kSubdir)) continue;
        for (auto [lang, leaf_off] : entries_of(name_off & ~kSubdir)) {
          (void)lang;
          if (leaf_off & kSubdir) continue;
          auto leaf = read_rva(base + leaf_off, 16);
          if (!leaf || leaf->size() < 16) continue;
          uint32_t data_rva = load_le<uint32_t>(*leaf, 0), data_size = load_le<uint32_t>(*leaf, 4);
          auto data = read_rva(data_rva, std::min<size_t>(data_size, kMaxVersionInfoBytes));
          if (!data) {
            info_.problems.push_back("corrupt: the version resource points outside the file");
            return;
          }
          parse_version_info(*data);
          return;
        }
      }
    }
  }

  // One VS_VERSIONINFO-style block: wLength, wValueLength, wType, szKey (UTF-16, NUL), padding
  // to 4, Value, padding to 4, children up to wLength.
  struct Block {
    size_t start, end;  // [start, end) in the buffer
    std::string key;
    size_t value_at;
    size_t value_length;  // in bytes for binary, in UTF-16 units for text
    bool text;
    size_t children_at;
  };

  static std::optional<Block> block_at(const std::string& b, size_t at, size_t limit) {
    if (at + 6 > limit) return std::nullopt;
    Block blk;
    uint16_t length = load_le<uint16_t>(b, at);
    if (length < 6 || at + length > limit) return std::nullopt;
    blk.start = at;
    blk.end = at + length;
    blk.value_length = load_le<uint16_t>(b, at + 2);
    blk.text = load_le<uint16_t>(b, at + 4) == 1;
    size_t key_at = at + 6, units = 0;
    while (key_at + 2 * units + 2 <= blk.end && load_le<uint16_t>(b, key_at + 2 * units) != 0) ++units;
    blk.key = utf16le_to_utf8(b, key_at, units);
    size_t after_key = key_at + 2 * (units + 1);
    blk.value_at = (after_key + 3) & ~size_t(3);
    size_t value_bytes = blk.text ? 2 * blk.value_length : blk.value_length;
    blk.children_at = (blk.value_at + value_bytes + 3) & ~size_t(3);
    if (blk.value_at + value_bytes > blk.end) blk.value_length = 0;
    return blk;
  }

  void parse_version_info(const std::string& b) {
    auto root = block_at(b, 0, b.size());
    if (!root || root->key != "VS_VERSION_INFO") {
      info_.problems.push_back("corrupt: the version resource does not start with VS_VERSION_INFO");
      return;
    }
    if (root->value_length >= 52 && load_le<uint32_t>(b, root->value_at) == kFixedFileInfoSignature) {
      auto version = [&](size_t at) {
        uint32_t ms = load_le<uint32_t>(b, at), ls = load_le<uint32_t>(b, at + 4);
        return PeVersion{uint16_t(ms >> 16), uint16_t(ms & 0xffff), uint16_t(ls >> 16), uint16_t(ls & 0xffff)};
      };
      info_.file_version = version(root->value_at + 8);
      info_.product_version = version(root->value_at + 16);
    }
    // StringFileInfo -> StringTable ("040904b0") -> String ("FileDescription" = "...").
    for (size_t at = root->children_at; at < root->end;) {
      auto child = block_at(b, at, root->end);
      if (!child) break;
      if (child->key == "StringFileInfo") read_string_file_info(b, *child);
      at = (child->end + 3) & ~size_t(3);
    }
  }

  void read_string_file_info(const std::string& b, const Block& sfi) {
    for (size_t at = sfi.children_at; at < sfi.end;) {
      auto table = block_at(b, at, sfi.end);
      if (!table) return;
      for (size_t s = table->children_at; s < table->end;) {
        auto str = block_at(b, s, table->end);
        if (!str) break;
        size_t units = str->value_length;
        // wValueLength counts the NUL on most compilers; drop trailing NULs.
        while (units > 0 && load_le<uint16_t>(b, str->value_at + 2 * (units - 1)) == 0) --units;
        std::string value = utf16le_to_utf8(b, str->value_at, units);
        if (str->key == "FileDescription" && info_.file_description.empty()) info_.file_description = value;
        if (str->key == "FileVersion" && info_.file_version_text.empty()) info_.file_version_text = value;
        if (str->key == "ProductName" && info_.product_name.empty()) info_.product_name = value;
        s = (str->end + 3) & ~size_t(3);
      }
      return;  // the first string table (language) is enough
    }
  }

  const RangeReader& read_;
  uint64_t file_size_;
  PeInfo& info_;
  DataDir dirs_[16];
  std::vector<Section> sections_;
};

}  // namespace

std::string pe_version_string(const PeVersion& v) {
  return std::to_string(v[0]) + "." + std::to_string(v[1]) + "." + std::to_string(v[2]) + "." + std::to_string(v[3]);
}

Result<PeInfo> parse_pe(const RangeReader& read, uint64_t file_size) {
  PeInfo info;
  PeReader reader(read, file_size, info);
  auto status = reader.parse();
  if (!status) return status.error();
  return info;
}

}  // namespace cudnnup
