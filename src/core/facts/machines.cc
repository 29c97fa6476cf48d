#include "facts/machines.h"

#include "base/strings.h"

namespace cudnnup {
namespace {

constexpr Machine kMachines[] = {
    {"x86_64", kElfMachineX86_64, kPeMachineX64, "x64", "x86_64-linux-gnu", "linux-x86_64", "windows-x86_64",
     "/lib64/ld-linux-x86-64.so.2"},
    {"aarch64", kElfMachineAarch64, kPeMachineArm64, "arm64", "aarch64-linux-gnu", "linux-sbsa", "windows-arm64",
     "/lib/ld-linux-aarch64.so.1"},
    {"ppc64le", kElfMachinePpc64, 0, "", "powerpc64le-linux-gnu", "linux-ppc64le", "", "/lib64/ld64.so.2"},
    {"i686", kElfMachineI386, kPeMachineX86, "x86", "i386-linux-gnu", "", "", "/lib/ld-linux.so.2"},
    {"arm", kElfMachineArm, 0, "", "arm-linux-gnueabihf", "", "", "/lib/ld-linux-armhf.so.3"},
    {"s390x", kElfMachineS390, 0, "", "s390x-linux-gnu", "", "", "/lib/ld64.so.1"},
    {"riscv64", kElfMachineRiscv, 0, "", "riscv64-linux-gnu", "", "", "/lib/ld-linux-riscv64-lp64d.so.1"},
};

std::string hex4(uint16_t v) {
  static const char* hex = "0123456789abcdef";
  std::string s = "0x";
  for (int shift = 12; shift >= 0; shift -= 4) s += hex[(v >> shift) & 0xf];
  return s;
}

}  // namespace

const Machine* machine_by_name(std::string_view name) {
  if (name == "amd64") name = "x86_64";
  if (name == "arm64") name = "aarch64";
  for (const Machine& m : kMachines) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const Machine* machine_by_elf(uint16_t elf_machine) {
  for (const Machine& m : kMachines) {
    if (m.elf == elf_machine) return &m;
  }
  return nullptr;
}

const Machine* machine_by_pe(uint16_t pe_machine) {
  for (const Machine& m : kMachines) {
    if (m.pe != 0 && m.pe == pe_machine) return &m;
  }
  return nullptr;
}

const Machine& host_machine() {
#if defined(__aarch64__) || defined(_M_ARM64)
  return *machine_by_elf(kElfMachineAarch64);
#elif defined(__powerpc64__)
  return *machine_by_elf(kElfMachinePpc64);
#else
  return *machine_by_elf(kElfMachineX86_64);
#endif
}

std::string elf_machine_name(uint16_t elf_machine) {
  const Machine* m = machine_by_elf(elf_machine);
  return m ? std::string(m->name) : "machine " + std::to_string(elf_machine);
}

std::string pe_machine_name(uint16_t pe_machine) {
  const Machine* m = machine_by_pe(pe_machine);
  return m ? std::string(m->pe_name) : "machine " + hex4(pe_machine);
}

std::string multiarch_triplet(uint16_t elf_machine, bool is_64bit) {
  const Machine* m = machine_by_elf(elf_machine);
  if (!m) return {};
  if (elf_machine == kElfMachineX86_64 && !is_64bit) return std::string(m->triplet) + "x32";
  return std::string(m->triplet);
}

std::string multiarch_triplet_of(std::string_view name) {
  const Machine* m = machine_by_name(name);
  return std::string(m ? m->triplet : machine_by_elf(kElfMachineX86_64)->triplet);
}

std::string elf_interpreter(uint16_t elf_machine, bool is_64bit) {
  if (elf_machine == kElfMachineX86_64 && !is_64bit) return "/libx32/ld-linux-x32.so.2";
  const Machine* m = machine_by_elf(elf_machine);
  return m ? std::string(m->interpreter) : "";
}

uint16_t elf_machine_of(std::string_view name) {
  const Machine* m = machine_by_name(name);
  return m ? m->elf : kElfMachineX86_64;
}

const char* archive_platform_name(ArchivePlatform p) {
  switch (p) {
    case ArchivePlatform::kLinux: return "linux";
    case ArchivePlatform::kWindows: return "windows";
    case ArchivePlatform::kMacos: return "macos";
    case ArchivePlatform::kUnknown: break;
  }
  return "unknown";
}

const char* archive_arch_name(ArchiveArch a) {
  switch (a) {
    case ArchiveArch::kX86_64: return "x86_64";
    case ArchiveArch::kSbsa: return "sbsa";
    case ArchiveArch::kAarch64Jetson: return "aarch64";
    case ArchiveArch::kPpc64le: return "ppc64le";
    case ArchiveArch::kArm64: return "arm64";
    case ArchiveArch::kUnknown: break;
  }
  return "unknown";
}

ArchiveArch archive_arch_from_word(std::string_view word) {
  std::string w = ascii_lower(word);
  if (w == "x86_64" || w == "x86-64" || w == "x8664" || w == "x64" || w == "amd64") return ArchiveArch::kX86_64;
  if (w == "sbsa" || w == "aarch64sbsa") return ArchiveArch::kSbsa;
  if (w == "aarch64") return ArchiveArch::kAarch64Jetson;
  if (w == "ppc64le") return ArchiveArch::kPpc64le;
  if (w == "arm64") return ArchiveArch::kArm64;
  return ArchiveArch::kUnknown;
}

const char* legacy_archive_arch_word(ArchiveArch a) {
  switch (a) {
    case ArchiveArch::kSbsa: return "aarch64sbsa";
    case ArchiveArch::kPpc64le: return "ppc64le";
    default: return "x64";
  }
}

std::string archive_arch_machine(ArchiveArch a) {
  switch (a) {
    case ArchiveArch::kX86_64: return std::string(machine_by_elf(kElfMachineX86_64)->name);
    case ArchiveArch::kSbsa:
    case ArchiveArch::kAarch64Jetson:
    case ArchiveArch::kArm64: return std::string(machine_by_elf(kElfMachineAarch64)->name);
    case ArchiveArch::kPpc64le: return std::string(machine_by_elf(kElfMachinePpc64)->name);
    case ArchiveArch::kUnknown: break;
  }
  return {};
}

std::string archive_platform_key_for(const Machine& m, bool windows) {
  return std::string(windows ? m.windows_platform : m.linux_platform);
}

}  // namespace cudnnup
