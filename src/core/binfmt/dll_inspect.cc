#include "binfmt/dll_inspect.h"

namespace cudnnup {

DllInspection inspect_dll(const FileSystem& fs, const std::string& path, uint16_t expected_machine) {
  DllInspection out;
  auto info = fs.stat(path);
  if (!info) {
    out.problems.push_back(info.error().message);
    return out;
  }
  if (info->size == 0) {
    out.problems.push_back("empty file (0 bytes): a failed copy, download or unzip, or antivirus quarantine");
    return out;
  }
  RangeReader reader = [&fs, &path](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); };
  auto pe = parse_pe(reader, info->size);
  if (!pe) {
    out.problems.push_back(pe.error().message);
    return out;
  }
  out.file_version = pe->file_version;
  out.imports = pe->imports;
  out.delay_imports = pe->delay_imports;
  out.description = pe->file_description;
  if (pe->machine != expected_machine) {
    out.problems.push_back("built for " + pe_machine_name(pe->machine) + ", not " + pe_machine_name(expected_machine) +
                           ": LoadLibrary fails with error 193");
  }
  if (!pe->is_dll) out.problems.push_back("not a DLL (an executable image)");
  for (const auto& p : pe->problems) out.problems.push_back(p);
  return out;
}

}  // namespace cudnnup
