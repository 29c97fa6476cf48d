// What this machine's glibc ld.so searches by itself, read from the machine rather than assumed
// from the distribution's name:
//   * the default ("system") directories compiled into ld.so (glibc elf/gen-trusted-dirs.awk
//     writes them as SYSTEM_DIRS, one NUL-terminated "/dir/" after another: Debian/Ubuntu
//     "/lib/x86_64-linux-gnu/", "/usr/lib/x86_64-linux-gnu/", "/lib/", "/usr/lib/"; RHEL-family
//     "/lib64/", "/usr/lib64/"). `ld.so --help` prints the same list as "system search path".
//   * the glibc release, from the banner in ld.so or libc.so.6 ("... release version 2.36."): it
//     decides which hardware-capability subdirectories ld.so tries in every search directory:
//       - glibc-hwcaps/<level>/ from 2.33 (x86-64-v4, -v3, -v2 as far as the CPU supports them;
//         glibc sysdeps/x86_64/dl-hwcaps-subdirs.c, elf/dl-hwcaps.c);
//       - before 2.37 also the legacy power set of "tls", the platform and the important
//         AT_HWCAP names (tls/haswell/avx512_1/x86_64, ..., x86_64), removed in 2.37.
//   * the CPU's features from /proc/cpuinfo: the x86-64 ISA level, and the platform glibc sets
//     on Intel CPUs (sysdeps/x86/cpu-features.c: "haswell", "xeon_phi"), which is also $PLATFORM.
// Reading is cheap (ld.so is a few hundred KB and nothing is run); what cannot be read falls back
// to the distribution layout, and `notes` says so.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/filesystem.h"
#include "base/version.h"

namespace cudnnup {

struct LoaderConfig {
  std::string interpreter;                 // the ld.so that was read
  std::optional<Version> glibc_version;    // 2.36
  std::string glibc_version_source;        // "/lib64/ld-linux-x86-64.so.2 banner"
  std::vector<std::string> system_dirs;    // without trailing '/': "/lib/x86_64-linux-gnu", ...
  std::string system_dirs_source;          // where the list came from, for people
  std::string lib_token;                   // $LIB: "lib/x86_64-linux-gnu", "lib64", "lib"
  std::string platform;                    // $PLATFORM (AT_PLATFORM as glibc rewrites it)
  std::vector<std::string> hwcaps;         // glibc-hwcaps subdirectory names, best first (>= 2.33)
  std::vector<std::string> legacy_hwcaps;  // legacy subdirectories, in search order (< 2.37)
  std::vector<std::string> notes;          // what had to be assumed
};

// Reads the configuration for a process of this ELF class and machine.
LoaderConfig read_loader_config(const FileSystem& fs, bool is_64bit, uint16_t machine);

// --- The pure parts, tested on their own --------------------------------------------------------

// SYSTEM_DIRS inside ld.so's bytes: the first run of at least two NUL-terminated absolute
// directory names that end in '/' and name a lib directory, ended by an empty string. Returned
// without the trailing '/'. Empty when there is no such run.
std::vector<std::string> find_system_dirs(std::string_view ld_so_bytes);

// "release version 2.36" in a glibc banner ("ld.so (Debian GLIBC 2.36-9) stable release version
// 2.36."), or nullopt.
std::optional<Version> find_glibc_release(std::string_view bytes);

struct CpuFeatures {
  std::string vendor;           // "GenuineIntel", "AuthenticAMD"
  std::set<std::string> flags;  // the "flags" line of /proc/cpuinfo
};
CpuFeatures parse_cpuinfo(std::string_view text);

// The glibc-hwcaps subdirectories an x86-64 CPU supports, best first ("x86-64-v4", ...).
std::vector<std::string> x86_64_hwcaps_levels(const CpuFeatures& cpu);
// glibc's platform string on x86-64: "haswell" / "xeon_phi" on Intel CPUs with those features,
// else the kernel's AT_PLATFORM, "x86_64".
std::string x86_64_platform(const CpuFeatures& cpu);
// The important AT_HWCAP names on x86-64, as glibc orders them for the power set: "avx512_1"
// (Intel with AVX-512 F/CD/BW/DQ/VL and without AVX512ER) and always "x86_64".
std::vector<std::string> x86_64_hwcap_names(const CpuFeatures& cpu);

// The legacy subdirectories of glibc < 2.37: every non-empty subset of `components` (given in
// the order glibc prints them: "tls", platform, hwcap names), largest first, in the order
// ld.so tries them: tls/haswell/avx512_1/x86_64, tls/haswell/avx512_1, ..., x86_64.
std::vector<std::string> legacy_hwcaps_subdirs(const std::vector<std::string>& components);

}  // namespace cudnnup
