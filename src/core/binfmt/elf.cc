#include "binfmt/elf.h"

#include <algorithm>
#include <cstring>

#include "base/paths.h"
#include "binfmt/little_endian.h"

namespace cudnnup {
namespace {

constexpr uint32_t kPtLoad = 1, kPtDynamic = 2, kPtInterp = 3;
constexpr uint16_t kEtExec = 2, kEtDyn = 3;
constexpr int64_t kDtNull = 0, kDtNeeded = 1, kDtStrtab = 5, kDtStrsz = 10, kDtSoname = 14,
                  kDtRpath = 15, kDtRunpath = 29;
constexpr size_t kMaxProgramHeaders = 4096;
// The first read of a file: the ELF header needs 64 bytes, but the program headers follow it
// (libc's 14 end at byte 848), so reading one page answers both through a caching reader
// (base/caching_filesystem.h) for one system call instead of two.
constexpr size_t kFirstReadBytes = 4096;
constexpr size_t kMaxElfSections = 8192;
constexpr size_t kMaxDynamicBytes = 1 << 20;
constexpr size_t kMaxStrtabBytes = 64 << 20;
constexpr size_t kMaxStringBytes = 4096;  // longest SONAME/NEEDED/RPATH string we read
constexpr uint64_t kMaxStringSpanBytes = 64 << 10;  // NEEDED/SONAME/RPATH strings read in one piece up to this

struct Segment {
  uint32_t type;
  uint64_t offset, vaddr, filesz;
};

// The dynamic section's string entries (NEEDED, SONAME, RPATH, RUNPATH) into `info`; a table that
// cannot be located is a problem noted in `info`, a read error an error.
Status read_dynamic_strings(const RangeReader& read, const std::vector<Segment>& segments, const Segment& dynamic,
                            ElfInfo& info) {
  auto dyn = read(dynamic.offset, size_t(dynamic.filesz));
  if (!dyn) return dyn.error();
  uint64_t strtab_vaddr = 0, strsz = 0;
  std::vector<std::pair<int64_t, uint64_t>> string_tags;
  size_t entsize = info.is_64bit ? 16 : 8;
  for (size_t o = 0; o + entsize <= dyn->size(); o += entsize) {
    int64_t tag = info.is_64bit ? load_le<int64_t>(*dyn, o) : load_le<int32_t>(*dyn, o);
    uint64_t val = info.is_64bit ? load_le<uint64_t>(*dyn, o + 8) : load_le<uint32_t>(*dyn, o + 4);
    if (tag == kDtNull) break;
    if (tag == kDtStrtab) strtab_vaddr = val;
    if (tag == kDtStrsz) strsz = val;
    if (tag == kDtNeeded || tag == kDtSoname || tag == kDtRpath || tag == kDtRunpath) string_tags.emplace_back(tag, val);
    if (tag == kDtRunpath) info.has_runpath_tag = true;
  }
  if (string_tags.empty()) return ok_status();
  // DT_STRTAB is a virtual address; map it to a file offset through the PT_LOAD segments.
  uint64_t strtab_offset = UINT64_MAX;
  for (const auto& s : segments) {
    if (s.type == kPtLoad && strtab_vaddr >= s.vaddr && strtab_vaddr < s.vaddr + s.filesz) {
      strtab_offset = s.offset + (strtab_vaddr - s.vaddr);
    }
  }
  if (strtab_offset == UINT64_MAX || strsz == 0 || strsz > kMaxStrtabBytes) {
    info.problems.push_back("the dynamic string table cannot be located");
    return ok_status();
  }
  // Not the whole table: the big cuDNN and cuBLAS libraries carry megabytes of symbol names, and
  // a handful of short strings are wanted. They lie together (the linker writes them in one run),
  // so the span from the first to the end of the last is read at once when it is small; else
  // each string where it lies.
  uint64_t first = UINT64_MAX, last = 0;
  for (const auto& tag_value : string_tags) {
    first = std::min(first, tag_value.second);
    last = std::max(last, tag_value.second);
  }
  std::string span;
  uint64_t span_at = first;
  if (first < strsz && last - first <= kMaxStringSpanBytes) {
    auto bytes = read(strtab_offset + first, size_t(std::min<uint64_t>(strsz - first, last - first + kMaxStringBytes)));
    if (!bytes) return bytes.error();
    span = std::move(*bytes);
  }
  auto string_at = [&](uint64_t index) -> Result<std::string> {
    if (index >= strsz) return std::string();
    size_t window = size_t(std::min<uint64_t>(strsz - index, kMaxStringBytes));
    if (!span.empty() && index >= span_at && index - span_at < span.size()) {
      std::string_view in_span = std::string_view(span).substr(size_t(index - span_at), window);
      return std::string(in_span.data(), strnlen(in_span.data(), in_span.size()));
    }
    auto bytes = read(strtab_offset + index, window);
    if (!bytes) return bytes.error();
    return std::string(bytes->data(), strnlen(bytes->data(), bytes->size()));
  };
  for (const auto& [tag, val] : string_tags) {
    auto str = string_at(val);
    if (!str) return str.error();
    const std::string& s = *str;
    if (tag == kDtNeeded) info.needed.push_back(s);
    if (tag == kDtSoname) info.soname = s;
    if (tag == kDtRpath) info.rpath = paths::split_list(s, ':');
    if (tag == kDtRunpath) info.runpath = paths::split_list(s, ':');
  }
  return ok_status();
}

}  // namespace

Result<ElfInfo> parse_elf(const RangeReader& read, uint64_t file_size) {
  auto header = read(0, kFirstReadBytes);
  if (!header) return header.error();
  const std::string& h = *header;
  if (h.size() < 16 || h.compare(0, 4, "\x7f" "ELF") != 0) {
    return make_error(ErrorCode::kCorrupt,
                      file_size == 0 ? "the file is empty (0 bytes)" : "not an ELF file (bad magic bytes)");
  }
  ElfInfo info;
  info.is_64bit = h[4] == 2;
  if (h[5] != 1) return make_error(ErrorCode::kUnsupported, "big-endian ELF files are not supported");
  size_t need = info.is_64bit ? 64 : 52;
  if (h.size() < need) return make_error(ErrorCode::kCorrupt, "the ELF header is cut short");
  info.type = load_le<uint16_t>(h, 16);
  info.machine = load_le<uint16_t>(h, 18);
  uint64_t phoff, shoff;
  uint16_t phentsize, phnum, shentsize, shnum;
  if (info.is_64bit) {
    phoff = load_le<uint64_t>(h, 32);
    shoff = load_le<uint64_t>(h, 40);
    phentsize = load_le<uint16_t>(h, 54);
    phnum = load_le<uint16_t>(h, 56);
    shentsize = load_le<uint16_t>(h, 58);
    shnum = load_le<uint16_t>(h, 60);
  } else {
    phoff = load_le<uint32_t>(h, 28);
    shoff = load_le<uint32_t>(h, 32);
    phentsize = load_le<uint16_t>(h, 42);
    phnum = load_le<uint16_t>(h, 44);
    shentsize = load_le<uint16_t>(h, 46);
    shnum = load_le<uint16_t>(h, 48);
  }
  // The section table sits at the very end of a normal shared object, so a file that was cut
  // short loses it first: the cheapest reliable truncation check there is.
  if (shnum > 0 && shoff + uint64_t(shnum) * shentsize > file_size) {
    info.problems.push_back("truncated: the section table ends at byte " +
                            std::to_string(shoff + uint64_t(shnum) * shentsize) + " but the file has " +
                            std::to_string(file_size) + " bytes");
  }
  if (info.type != kEtExec && info.type != kEtDyn) info.unmappable = "only ET_DYN and ET_EXEC can be loaded";
  if (phnum == 0 || phnum > kMaxProgramHeaders || phentsize < (info.is_64bit ? 56 : 32)) {
    info.problems.push_back("no usable program headers");
    if (info.unmappable.empty()) info.unmappable = "ELF file's program headers are missing or of the wrong size";
    return info;
  }
  auto ph = read(phoff, size_t(phnum) * phentsize);
  if (!ph) return ph.error();
  if (ph->size() < size_t(phnum) * phentsize) {
    info.problems.push_back("truncated: the program headers run past the end of the file");
    if (info.unmappable.empty()) info.unmappable = "cannot read file data: the program headers are cut off";
    return info;
  }
  std::vector<Segment> segments;
  for (size_t i = 0; i < phnum; ++i) {
    size_t o = i * phentsize;
    Segment s;
    s.type = load_le<uint32_t>(*ph, o);
    if (info.is_64bit) {
      s.offset = load_le<uint64_t>(*ph, o + 8);
      s.vaddr = load_le<uint64_t>(*ph, o + 16);
      s.filesz = load_le<uint64_t>(*ph, o + 32);
    } else {
      s.offset = load_le<uint32_t>(*ph, o + 4);
      s.vaddr = load_le<uint32_t>(*ph, o + 8);
      s.filesz = load_le<uint32_t>(*ph, o + 16);
    }
    if (s.type == kPtLoad && s.offset + s.filesz > file_size) {
      info.problems.push_back("truncated: a loadable segment ends at byte " + std::to_string(s.offset + s.filesz) +
                              " but the file has " + std::to_string(file_size) + " bytes");
    }
    segments.push_back(s);
  }
  bool loadable = std::any_of(segments.begin(), segments.end(), [](const Segment& s) { return s.type == kPtLoad; });
  if (!loadable && info.unmappable.empty()) info.unmappable = "object file has no loadable segments";
  for (const auto& s : segments) {
    if (s.type != kPtInterp || s.filesz == 0 || s.filesz > kMaxStringBytes || s.offset + s.filesz > file_size) continue;
    auto interp = read(s.offset, size_t(s.filesz));
    if (interp) info.interpreter = std::string(interp->data(), strnlen(interp->data(), interp->size()));
  }
  const Segment* dynamic = nullptr;
  for (const auto& s : segments) {
    if (s.type == kPtDynamic) dynamic = &s;
  }
  if (!dynamic) return info;  // a static executable or a non-library: nothing more to read
  if (dynamic->filesz > kMaxDynamicBytes || dynamic->offset + dynamic->filesz > file_size) {
    info.problems.push_back("the dynamic section lies outside the file");
    return info;
  }
  if (Status st = read_dynamic_strings(read, segments, *dynamic, info); !st) return st.error();
  return info;
}

std::optional<ElfSection> find_elf_section(const RangeReader& read, uint64_t file_size, std::string_view name) {
  auto header = read(0, 64);
  if (!header || header->size() < 64 || header->compare(0, 4, "\x7f" "ELF") != 0 || (*header)[5] != 1) return std::nullopt;
  const std::string& h = *header;
  bool wide = h[4] == 2;
  uint64_t shoff = wide ? load_le<uint64_t>(h, 40) : load_le<uint32_t>(h, 32);
  uint16_t shentsize = load_le<uint16_t>(h, wide ? 58 : 46), shnum = load_le<uint16_t>(h, wide ? 60 : 48);
  uint16_t shstrndx = load_le<uint16_t>(h, wide ? 62 : 50);
  size_t entry = wide ? 64 : 40;
  if (shnum == 0 || shnum > kMaxElfSections || shentsize < entry || shstrndx >= shnum) return std::nullopt;
  uint64_t table_bytes = uint64_t(shnum) * shentsize;
  if (shoff > file_size || table_bytes > file_size - shoff) return std::nullopt;
  auto table = read(shoff, size_t(table_bytes));
  if (!table || table->size() < table_bytes) return std::nullopt;
  auto section = [&](size_t i) {
    size_t o = i * shentsize;
    ElfSection s;
    uint32_t name_at = load_le<uint32_t>(*table, o);
    s.offset = wide ? load_le<uint64_t>(*table, o + 24) : load_le<uint32_t>(*table, o + 16);
    s.size = wide ? load_le<uint64_t>(*table, o + 32) : load_le<uint32_t>(*table, o + 20);
    return std::make_pair(name_at, s);
  };
  ElfSection names = section(shstrndx).second;
  if (names.offset > file_size || names.size > file_size - names.offset || names.size > kMaxStrtabBytes) return std::nullopt;
  auto strings = read(names.offset, size_t(names.size));
  if (!strings || strings->size() < names.size) return std::nullopt;
  for (size_t i = 0; i < shnum; ++i) {
    auto [name_at, s] = section(i);
    if (name_at >= strings->size()) continue;
    std::string_view n(strings->data() + name_at, strnlen(strings->data() + name_at, strings->size() - name_at));
    if (n == name && s.offset <= file_size && s.size <= file_size - s.offset) return s;
  }
  return std::nullopt;
}

}  // namespace cudnnup
