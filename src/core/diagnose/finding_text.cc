#include "diagnose/finding_text.h"

namespace cudnnup {

Finding make_finding(std::string_view id, Severity severity, const std::string& subject, std::string title) {
  Finding f;
  f.id = std::string(id);
  f.severity = severity;
  f.subject = subject;
  f.title = std::move(title);
  return f;
}

Version effective_version(const CudnnCopy& copy) {
  return copy.library_version.known() ? copy.library_version : copy.header_version;
}

std::string copy_label(const CudnnCopy& copy) {
  Version v = effective_version(copy);
  return "cuDNN " + (v.known() ? v.str() : std::string("(unknown version)")) + " in " + copy.lib_dir;
}

}  // namespace cudnnup
