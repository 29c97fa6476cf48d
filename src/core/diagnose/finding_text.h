// Small helpers every doctor check uses to word a finding the same way.
#pragma once

#include <string>
#include <string_view>

#include "base/model.h"
#include "facts/install_fix.h"  // install_fix, install_newest_fix: the install steps of fixes

namespace cudnnup {

Finding make_finding(std::string_view id, Severity severity, const std::string& subject, std::string title);

// The version a copy is judged by: what the library says, else the header.
Version effective_version(const CudnnCopy& copy);

// "cuDNN 9.19.0 in /usr/local/cuda-13.0/lib"
std::string copy_label(const CudnnCopy& copy);

}  // namespace cudnnup
