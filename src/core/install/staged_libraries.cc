#include "install/staged_libraries.h"

#include <map>

#include "base/paths.h"
#include "binfmt/elf.h"
#include "binfmt/pe.h"
#include "facts/cudnn_files.h"

namespace cudnnup {
namespace {

constexpr uint16_t kElfSharedObject = 3;  // ET_DYN

Error damaged(const std::string& rel, const std::string& why, const std::string& path) {
  return make_error(ErrorCode::kCorrupt, "refusing " + rel + ": " + why, path);
}

Status check_shared_library(const FileSystem& fs, const std::string& path, const std::string& rel, uint64_t size,
                            bool windows) {
  RangeReader reader = [&](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); };
  if (windows) {
    auto pe = parse_pe(reader, size);
    if (!pe) return damaged(rel, "it is not a valid PE file: " + pe.error().message, path);
    if (!pe->is_dll) return damaged(rel, "it is a PE file but not a DLL", path);
    if (!pe->problems.empty()) return damaged(rel, "it is damaged: " + pe->problems.front(), path);
    return ok_status();
  }
  auto elf = parse_elf(reader, size);
  if (!elf) return damaged(rel, "it is not a valid ELF file: " + elf.error().message, path);
  if (elf->type != kElfSharedObject) return damaged(rel, "it is an ELF file but not a shared library", path);
  if (!elf->problems.empty()) return damaged(rel, "it is damaged: " + elf->problems.front(), path);
  return ok_status();
}

}  // namespace

Status verify_staged_libraries(const FileSystem& fs, const std::string& stage, const ScanResult& scan, bool windows) {
  std::map<std::string, const ArchiveItem*> items;
  for (const auto& i : scan.items) items[i.rel] = &i;
  for (const auto& lib : scan.report.libraries) {
    if (lib.is_link) continue;  // links end on a library file of the same name (install/resolved_tree.h)
    std::string path = stage + "/" + lib.rel;
    auto info = fs.lstat(path);
    if (!info) return info.error();
    if (info->type != FileType::kRegular) return damaged(lib.rel, "the staged copy is not a regular file", path);
    auto item = items.find(lib.rel);
    if (item != items.end() && info->size != item->second->size) {
      return make_error(ErrorCode::kIo, "the staged copy of " + lib.rel + " has " + std::to_string(info->size) + " bytes instead of " +
                                            std::to_string(item->second->size) + " (disk full?)", path);
    }
    auto name = parse_cudnn_file_name(paths::basename(lib.rel));
    if (!name || (name->kind != CudnnFileKind::kRuntime && name->kind != CudnnFileKind::kDevLink)) continue;
    if (auto s = check_shared_library(fs, path, lib.rel, info->size, windows); !s) return s;
  }
  return ok_status();
}

}  // namespace cudnnup
