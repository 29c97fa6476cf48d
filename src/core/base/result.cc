#include "base/result.h"

namespace cudnnup {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage: return "usage";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kPermission: return "permission";
    case ErrorCode::kIo: return "io";
    case ErrorCode::kCorrupt: return "corrupt";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kConflict: return "conflict";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

}  // namespace cudnnup
