#include "install/archive_contents.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/paths.h"
#include "facts/cudnn_components.h"
#include "facts/cudnn_files.h"
#include "facts/machines.h"

namespace cudnnup {
namespace {

uint16_t le16(const std::string& s, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(s[at]) | (static_cast<unsigned char>(s[at + 1]) << 8));
}
uint32_t le32(const std::string& s, size_t at) {
  return static_cast<uint32_t>(le16(s, at)) | (static_cast<uint32_t>(le16(s, at + 2)) << 16);
}

}  // namespace

BinaryFormat sniff_binary(const std::string& head, std::string* machine) {
  machine->clear();
  if (head.size() >= 20 && head.compare(0, 4, "\x7f" "ELF") == 0) {
    bool little = head[5] == 1;
    uint16_t m = little ? le16(head, 18)
                        : static_cast<uint16_t>((static_cast<unsigned char>(head[18]) << 8) | static_cast<unsigned char>(head[19]));
    const Machine* known = machine_by_elf(m);
    *machine = !known ? "elf-machine-" + std::to_string(m) : little ? std::string(known->name) : std::string(known->name) + "-big-endian";
    return BinaryFormat::kElf;
  }
  if (head.size() >= 0x40 && head[0] == 'M' && head[1] == 'Z') {
    uint32_t pe = le32(head, 0x3c);
    if (uint64_t(pe) + 6 <= head.size() && head.compare(pe, 4, std::string("PE\0\0", 4)) == 0) {
      uint16_t m = le16(head, pe + 4);
      const Machine* known = machine_by_pe(m);
      *machine = known ? std::string(known->name) : "pe-machine-" + std::to_string(m);
      return BinaryFormat::kPe;
    }
    return BinaryFormat::kNone;
  }
  if (head.compare(0, 8, "!<arch>\n") == 0) return BinaryFormat::kArStatic;
  return BinaryFormat::kNone;
}

std::string merge_destination(const std::string& rel, bool windows, const std::string& linux_lib_dir) {
  std::string first = rel.substr(0, rel.find('/'));
  std::string rest = rel.find('/') == std::string::npos ? std::string() : rel.substr(rel.find('/') + 1);
  if (rest.empty()) return {};  // LICENSE and other top-level files stay out of the toolkit
  if (first == "include") return rel;
  if (windows) {
    if (first == "bin") return rel;
    if (first == "lib") return rest.rfind("x64/", 0) == 0 ? rel : "lib/x64/" + rest;
    return {};
  }
  if (first == "lib" || first == "lib64") return linux_lib_dir + "/" + rest;
  return {};
}

ContentReport check_contents(const std::vector<ArchiveItem>& items, const std::string& top_dir,
                             const std::optional<ArchiveName>& name) {
  ContentReport r;
  r.top_dir = top_dir;
  std::map<std::string, const ArchiveItem*> by_rel;
  for (const auto& item : items) by_rel[item.rel] = &item;

  // 1. The top folder agrees with the name.
  if (name) {
    if (name->era == ArchiveEra::kLegacy) {
      if (top_dir != "cuda") r.errors.push_back("The name says a legacy archive, whose files sit under 'cuda/', but the top folder is '" + top_dir + "/'.");
    } else if (top_dir != name->expected_top_dir()) {
      auto inner = parse_archive_name(top_dir + name->extension);
      if (!inner.ok()) {
        r.warnings.push_back("The top folder '" + top_dir + "/' does not name the archive (expected '" + name->expected_top_dir() + "/').");
      } else {
        if (!(inner->version == name->version)) r.errors.push_back("The file name says cuDNN " + name->version.str() + " but the top folder says " + inner->version.str() + ".");
        if (inner->platform_key() != name->platform_key()) r.errors.push_back("The file name says " + name->platform_key() + " but the top folder says " + inner->platform_key() + ".");
        if (inner->cuda_variant != name->cuda_variant) r.errors.push_back("The file name says CUDA " + name->cuda_variant + " but the top folder says CUDA " + inner->cuda_variant + ".");
      }
    }
  }

  // 2. The header version.
  for (const char* candidate : {"include/cudnn_version.h", "include/cudnn.h"}) {
    auto it = by_rel.find(candidate);
    if (it == by_rel.end() || it->second->kind != EntryKind::kFile) continue;
    if (auto v = parse_cudnn_header_version(it->second->head)) {
      r.header_version = v->version;
      r.header_path = candidate;
      break;
    }
  }
  if (!r.header_version.known()) {
    r.errors.push_back("The archive has no include/cudnn_version.h (nor a cudnn.h with CUDNN_MAJOR), so it is not a complete cuDNN archive.");
  } else if (name && !(name->version.truncated(3) == r.header_version)) {
    r.errors.push_back("The file name says cuDNN " + name->version.str() + ", but include/" + paths::basename(r.header_path).data() +
                       " says " + r.header_version.str() + ".");
  }

  // 3. Libraries: names, formats, machines.
  std::set<std::string> formats;
  std::set<std::string> machines;
  std::set<int> majors;
  std::set<std::string> shared_components;
  for (const auto& item : items) {
    if (item.kind == EntryKind::kDirectory) continue;
    auto file = parse_cudnn_file_name(paths::basename(item.rel));
    if (!file || file->kind == CudnnFileKind::kHeader) continue;
    LibraryCheck lib;
    lib.component = file->component;
    lib.major = file->major;
    const bool shared = file->kind == CudnnFileKind::kRuntime || file->kind == CudnnFileKind::kDevLink;
    lib.rel = item.rel;
    lib.is_link = item.kind == EntryKind::kSymlink;
    if (lib.major) majors.insert(lib.major);
    if (!lib.is_link) {
      if (item.size == 0) {
        r.errors.push_back(item.rel + " is empty (0 bytes): the download or the unpacking broke off.");
      } else {
        lib.format = sniff_binary(item.head, &lib.machine);
        bool is_import_or_static = file->kind == CudnnFileKind::kStatic || file->kind == CudnnFileKind::kImport;
        if (shared && lib.format != BinaryFormat::kElf && lib.format != BinaryFormat::kPe) {
          r.errors.push_back(item.rel + " is not a shared library (it has neither an ELF nor a PE header).");
        } else if (is_import_or_static && lib.format != BinaryFormat::kArStatic && lib.format != BinaryFormat::kPe) {
          r.errors.push_back(item.rel + " is not a static or import library (it has no '!<arch>' header).");
        }
        if (lib.format == BinaryFormat::kElf) formats.insert("elf");
        if (lib.format == BinaryFormat::kPe) formats.insert("pe");
        if (!lib.machine.empty()) machines.insert(lib.machine);
      }
    }
    if (shared) shared_components.insert(lib.component);
    r.libraries.push_back(lib);
  }
  if (formats.size() > 1) r.errors.push_back("The archive mixes Linux (ELF) and Windows (PE) libraries.");
  if (formats.count("elf")) r.platform = ArchivePlatform::kLinux;
  if (formats.count("pe") && !formats.count("elf")) r.platform = ArchivePlatform::kWindows;
  if (machines.size() > 1) r.errors.push_back("The libraries are built for several machines: " + *machines.begin() + " and " + *machines.rbegin() + ".");
  if (!machines.empty()) r.machine = *machines.begin();
  if (majors.size() > 1) {
    r.errors.push_back("The archive mixes cuDNN " + std::to_string(*majors.begin()) + " and " +
                       std::to_string(*majors.rbegin()) + " libraries.");
  }
  if (!majors.empty()) r.library_major = *majors.rbegin();
  if (r.libraries.empty()) r.errors.push_back("The archive holds no cuDNN libraries (libcudnn*.so* or cudnn*.dll).");

  if (name && r.platform != ArchivePlatform::kUnknown && name->platform != r.platform) {
    r.errors.push_back(std::string("The archive is for the wrong platform: the file name says ") + archive_platform_name(name->platform) +
                       ", but the libraries are " + (r.platform == ArchivePlatform::kLinux ? "Linux ELF" : "Windows PE") + " files.");
  }
  if (name && !r.machine.empty() && archive_arch_machine(name->arch) != r.machine) {
    r.errors.push_back("The archive is for the wrong architecture: the file name says " + std::string(archive_arch_name(name->arch)) +
                       ", but the libraries are built for " + r.machine + ".");
  }
  if (r.header_version.known() && r.library_major && r.library_major != r.header_version.major()) {
    r.errors.push_back("The header says cuDNN " + r.header_version.str() + ", but the libraries are of major " + std::to_string(r.library_major) + ".");
  }

  // 4. The library set expected for this major.
  if (r.header_version.known()) {
    for (const auto& c : required_cudnn_components(r.header_version)) {
      if (!shared_components.count(c)) r.missing.push_back(c);
    }
    for (const auto& c : r.missing) {
      r.errors.push_back("The " + (c == "cudnn" ? std::string("shim library (libcudnn / cudnn64_N)") : "'" + c + "' sub-library") +
                         " of cuDNN " + std::to_string(r.header_version.major()) + " is missing.");
    }
    auto names = known_cudnn_components(r.header_version.major());
    std::set<std::string> known(names.begin(), names.end());
    for (const auto& c : shared_components) {
      if (!known.count(c)) r.warnings.push_back("The archive holds a cuDNN sub-library cudnnup does not know, '" + c + "' (perhaps newer than cudnnup).");
    }
  }
  return r;
}

}  // namespace cudnnup
