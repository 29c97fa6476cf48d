#include "base/model.h"

namespace cudnnup {

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "info";
}

const char* package_form_name(PackageForm f) {
  switch (f) {
    case PackageForm::kToolkitMerged: return "toolkit";
    case PackageForm::kArchiveTree: return "archive";
    case PackageForm::kPipWheel: return "pip";
    case PackageForm::kConda: return "conda";
    case PackageForm::kSystemPackage: return "system";
    case PackageForm::kStore: return "store";
    case PackageForm::kInstaller: return "installer";
    case PackageForm::kUnknown: return "unknown";
  }
  return "unknown";
}

}  // namespace cudnnup
