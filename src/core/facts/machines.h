// The one table of machines (CPU architectures): their ELF and PE machine numbers, the names
// cudnnup prints, Debian's multiarch triplets, and NVIDIA's archive platforms. Every other file
// translates through these functions (tests/style/one_fact_test.py checks that).
// Sources: ELF e_machine values, https://refspecs.linuxfoundation.org/elf/gabi4+/ch4.eheader.html
// and glibc's elf/elf.h; PE machine types, https://learn.microsoft.com/windows/win32/debug/pe-format;
// multiarch triplets, https://wiki.debian.org/Multiarch/Tuples; NVIDIA's platforms, the keys of
// https://developer.download.nvidia.com/compute/cudnn/redist/redistrib_9.21.0.json; program
// interpreters, glibc's sysdeps/unix/sysv/linux/<arch>/shlib-versions ("ld=").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cudnnup {

// ELF e_machine values.
constexpr uint16_t kElfMachineI386 = 3, kElfMachinePpc64 = 21, kElfMachineS390 = 22, kElfMachineArm = 40,
                   kElfMachineX86_64 = 62, kElfMachineAarch64 = 183, kElfMachineRiscv = 243;
// PE IMAGE_FILE_MACHINE_* values.
constexpr uint16_t kPeMachineX86 = 0x014c, kPeMachineX64 = 0x8664, kPeMachineArm64 = 0xaa64;

struct Machine {
  std::string_view name;      // as `uname -m` and cudnnup print it: "x86_64", "aarch64", "ppc64le"
  uint16_t elf = 0;           // ELF e_machine
  uint16_t pe = 0;            // PE machine; 0 = Windows does not run on it
  std::string_view pe_name;   // as Windows writes it: "x64", "arm64", "x86"
  std::string_view triplet;   // Debian multiarch triplet of its 64-bit (or only) ABI
  std::string_view linux_platform;    // NVIDIA's archive platform key, "" = no Linux cuDNN
  std::string_view windows_platform;  // "" = no Windows cuDNN
  std::string_view interpreter;       // glibc's program interpreter (PT_INTERP) for its 64-bit (or only) ABI
};

const Machine* machine_by_name(std::string_view name);  // "x86_64"; also "amd64", "arm64"
const Machine* machine_by_elf(uint16_t elf_machine);
const Machine* machine_by_pe(uint16_t pe_machine);
// The machine cudnnup itself was built for (its processes can load only libraries of this kind).
const Machine& host_machine();

// Names for messages: the table's name, else "machine 183" / "machine 0x01c4".
std::string elf_machine_name(uint16_t elf_machine);
std::string pe_machine_name(uint16_t pe_machine);  // Windows' spelling: "x64", "arm64", "x86"
// /usr/lib/<triplet>: "x86_64-linux-gnu" (x32: "x86_64-linux-gnux32"); "" when unknown.
std::string multiarch_triplet(uint16_t elf_machine, bool is_64bit = true);
// multiarch_triplet of the machine named `name` (an Environment's arch); x86_64's when unknown.
std::string multiarch_triplet_of(std::string_view name);
// The ELF machine of the machine named `name`; x86_64's when unknown.
uint16_t elf_machine_of(std::string_view name);
// glibc's dynamic loader for a class/machine ("/lib64/ld-linux-x86-64.so.2"; x32:
// "/libx32/ld-linux-x32.so.2"); "" when unknown. Sources: glibc's
// sysdeps/unix/sysv/linux/<arch>/shlib-versions ("ld=") and the psABIs.
std::string elf_interpreter(uint16_t elf_machine, bool is_64bit = true);

// NVIDIA's archive platforms: the OS and architecture words of archive names and redistrib keys.
enum class ArchivePlatform { kUnknown, kLinux, kWindows, kMacos };
enum class ArchiveArch { kUnknown, kX86_64, kSbsa, kAarch64Jetson, kPpc64le, kArm64 };
const char* archive_platform_name(ArchivePlatform p);  // "linux", "windows", "macos"
const char* archive_arch_name(ArchiveArch a);          // "x86_64", "sbsa", "aarch64", "ppc64le", "arm64"
// The word of an archive name: "x86_64" (also "x86-64", "x86_64", "x64", "amd64"), "sbsa" (also
// "aarch64sbsa"), "aarch64" (Jetson), "ppc64le", "arm64"; kUnknown otherwise.
ArchiveArch archive_arch_from_word(std::string_view word);
// How archives of cuDNN 8.2 and older spelled it: "x64", "aarch64sbsa", "ppc64le".
const char* legacy_archive_arch_word(ArchiveArch a);
// The machine whose libraries an archive of that architecture holds ("" for kUnknown).
std::string archive_arch_machine(ArchiveArch a);
// The redistrib key of the archives this machine installs: "linux-x86_64", "linux-sbsa", "windows-x86_64".
std::string archive_platform_key_for(const Machine& m, bool windows);

}  // namespace cudnnup
