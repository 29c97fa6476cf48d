// The verify stages that only look at facts (no GPU): toolkit, headers, library set, versions.
// The app gathers the facts (running nvcc, reading headers, loading libraries in the child) and
// these functions decide pass or fail and write the finding.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "facts/cudnn_components.h"
#include "facts/cudnn_files.h"  // cudnn_library_file_name, parse_cudnn_header_version
#include "gpu/verify_model.h"
#include "base/version.h"

namespace cudnnup {

// --- toolkit ---
// "Cuda compilation tools, release 13.0, V13.0.88" -> 13.0.88 (the V part, else the release).
std::optional<Version> parse_nvcc_version(std::string_view output);

struct ToolkitFacts {
  std::string nvcc_path;  // empty: no nvcc found
  bool ran = false;
  std::string output;
  std::string error;      // why it could not run
};
StageResult check_toolkit(const ToolkitFacts& facts, std::optional<Version>* toolkit_version);

// --- headers ---
// Where a copy's cudnn_version.h may be, given its library directory (first match wins):
// <root>/include (archives, pip, conda, toolkits), and the Debian/RPM include dirs for system
// lib dirs.
std::vector<std::string> header_candidates(const std::string& lib_dir);

struct HeaderFacts {
  std::string path;        // the header read; empty when none was found
  std::string text;
  std::vector<std::string> searched;
};
StageResult check_headers(const HeaderFacts& facts, std::optional<Version>* header_version);

// --- library set ---
// Sub-libraries a copy must have (facts/cudnn_components.h); `version` may be unknown (the shim
// did not load): then what every release of `major` has.
std::vector<std::string> required_sublibraries(int major, const Version& version);

struct LibraryLoad {
  std::string component;   // "cudnn" (shim), "ops", "engines_precompiled", ...
  std::string path;        // absolute path tried
  bool present = false;
  bool loaded = false;
  std::string error;       // the loader's message
  std::string real_path;   // after links, when present
  std::vector<std::string> elf_problems;  // from core/elf.h: truncation etc.
};

struct LibrarySetFacts {
  std::string lib_dir;          // canonical
  bool windows = false;
  int major = 0;
  Version version;              // from cudnnGetVersion; unknown when the shim did not load
  LibraryLoad shim;
  std::vector<LibraryLoad> sublibraries;
  std::vector<std::string> loaded_modules;  // every file mapped into the process afterwards
  std::vector<std::pair<std::string, int>> version_checks;  // {"cudnnCnnVersionCheck", status}
  std::vector<std::string> missing_symbols;  // API the shim lacks (gpu/cudnn_symbols.h)
};
// gpu/library_checks.cc. The checks, in order: the shim is there and loads; no cuDNN file from
// another directory is mapped (that would explain every later symptom, so it is its own finding
// and never "replace these files"); every sub-library is there and loads; the shim exports the
// whole API; the version checks pass; versions in file names agree.
StageResult check_library_set(const LibrarySetFacts& facts);

// The "modules" stage: after the GPU stages and after teardown (cuDNN loads engine libraries
// lazily), every mapped cuDNN file must still come from the copy. `snapshots`: {when, files}.
StageResult check_mapped_modules(const std::string& lib_dir, bool windows,
                                 const std::vector<std::pair<std::string, std::vector<std::string>>>& snapshots);

// Explains a loader error for a person: "truncated or corrupt", "missing dependency X", ...
std::string explain_load_error(const std::string& loader_message);

// --- versions ---
struct VersionFacts {
  std::optional<Version> header;
  long long library_number = 0;      // cudnnGetVersion()
  long long cudart_number = 0;       // cudnnGetCudartVersion()
  long long max_device_version = 0;  // cudnnGetMaxDeviceVersion(), 9.x; 0 when absent
  std::optional<Version> toolkit;    // nvcc
  int driver_cuda_number = 0;        // cuDriverGetVersion(), 0 when no driver
  std::optional<Version> gpu_cc;     // compute capability of the GPU under test
  std::string gpu_name;
  bool windows = false;              // which official archives a fix may offer
};
StageResult check_versions(const VersionFacts& facts);

}  // namespace cudnnup
