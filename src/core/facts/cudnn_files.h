// Recognising cuDNN files by name, and reading the version out of cuDNN headers.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/version.h"

namespace cudnnup {

struct CudnnLibraryName {
  std::string component;      // "cudnn" for the shim, else the part after "cudnn_": "ops", "cnn_infer"
  int major = 0;              // 9 from libcudnn_ops.so.9 / cudnn_ops64_9.dll; 0 for bare "libcudnn.so"
  Version version;            // full version when the name carries it: libcudnn.so.9.14.0 -> 9.14.0
  bool windows = false;       // a DLL name
  bool dev_link = false;      // libcudnn.so (no version): only used at link time
};

// libcudnn.so, libcudnn.so.9, libcudnn_ops.so.9.14.0, cudnn64_9.dll, cudnn_ops_infer64_8.dll.
// Static archives, import libraries and anything else are not runtime libraries: nullopt.
std::optional<CudnnLibraryName> parse_cudnn_library_name(std::string_view file_name);

// The file name a component has for a major: ("ops", 9, linux) -> "libcudnn_ops.so.9".
std::string cudnn_library_file_name(const std::string& component, int major, bool windows);

// "nvidia_cudnn_cu13-9.19.0.56.dist-info" -> {13, 9.19.0.56}: the pip wheel's metadata dir.
struct CudnnDistInfo {
  int cuda_major = 0;
  Version version;
};
std::optional<CudnnDistInfo> parse_cudnn_dist_info(std::string_view dir_name);

bool all_digits(std::string_view s);  // non-empty and only 0-9

struct HeaderVersion {
  Version version;            // MAJOR.MINOR.PATCHLEVEL
  int max_sm_major = -1, max_sm_minor = -1;  // 9.x only
};

// Reads CUDNN_MAJOR / CUDNN_MINOR / CUDNN_PATCHLEVEL from cudnn_version.h (8.x, 9.x) or cudnn.h
// (7.x and older). Computes from the parts, never from the CUDNN_VERSION expression.
std::optional<HeaderVersion> parse_cudnn_header_version(std::string_view text);

}  // namespace cudnnup
