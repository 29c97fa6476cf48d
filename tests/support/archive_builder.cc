#include "support/archive_builder.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/fixture_libs.h"
#include "support/pe_builder.h"

#if CUDNNUP_HAVE_INSTALL
#include <archive.h>
#include <archive_entry.h>
#endif

namespace cudnnup::testing {

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

#if CUDNNUP_HAVE_INSTALL
void write_archive(const std::string& out_path, const std::vector<FakeEntry>& entries, ArchiveFormat format) {
  struct archive* a = archive_write_new();
  switch (format) {
    case ArchiveFormat::kTarXz: archive_write_set_format_pax_restricted(a); archive_write_add_filter_xz(a); break;
    case ArchiveFormat::kTarGz: archive_write_set_format_pax_restricted(a); archive_write_add_filter_gzip(a); break;
    case ArchiveFormat::kTar: archive_write_set_format_pax_restricted(a); break;
    case ArchiveFormat::kZip: archive_write_set_format_zip(a); break;
  }
  if (format == ArchiveFormat::kTarXz) archive_write_set_filter_option(a, "xz", "compression-level", "1");
  ASSERT_EQ(archive_write_open_filename(a, out_path.c_str()), ARCHIVE_OK) << archive_error_string(a);
  for (const auto& e : entries) {
    struct archive_entry* ae = archive_entry_new();
    archive_entry_set_pathname(ae, e.path.c_str());
    archive_entry_set_mtime(ae, 1700000000, 0);
    switch (e.kind) {
      case EntryKind::kFile:
        archive_entry_set_filetype(ae, AE_IFREG);
        archive_entry_set_perm(ae, 0644);
        archive_entry_set_size(ae, e.declared_size >= 0 ? e.declared_size : static_cast<long long>(e.data.size()));
        break;
      case EntryKind::kDirectory:
        archive_entry_set_filetype(ae, AE_IFDIR);
        archive_entry_set_perm(ae, 0755);
        break;
      case EntryKind::kSymlink:
        archive_entry_set_filetype(ae, AE_IFLNK);
        archive_entry_set_perm(ae, 0777);
        archive_entry_set_symlink(ae, e.link_target.c_str());
        break;
      case EntryKind::kHardlink:
        archive_entry_set_filetype(ae, AE_IFREG);
        archive_entry_set_perm(ae, 0644);
        archive_entry_set_hardlink(ae, e.link_target.c_str());
        archive_entry_set_size(ae, 0);
        break;
      case EntryKind::kDevice:
        archive_entry_set_filetype(ae, AE_IFCHR);
        archive_entry_set_perm(ae, 0644);
        archive_entry_set_rdev(ae, 0x0103);
        break;
      case EntryKind::kFifo:
        archive_entry_set_filetype(ae, AE_IFIFO);
        archive_entry_set_perm(ae, 0644);
        break;
      default:
        ADD_FAILURE() << "unsupported fake entry kind";
    }
    if (e.mode >= 0) archive_entry_set_perm(ae, static_cast<mode_t>(e.mode));
    // ARCHIVE_WARN: a name that is not valid in the locale's charset (the hostile-name tests
    // write such names on purpose) is stored as raw bytes, with a warning.
    int header = archive_write_header(a, ae);
    ASSERT_TRUE(header == ARCHIVE_OK || header == ARCHIVE_WARN) << e.path << ": " << archive_error_string(a);
    if (e.kind == EntryKind::kFile && !e.data.empty()) {
      size_t n = e.declared_size >= 0 ? std::min(e.data.size(), size_t(e.declared_size)) : e.data.size();
      archive_write_data(a, e.data.data(), n);
    }
    archive_entry_free(ae);
  }
  archive_write_close(a);
  archive_write_free(a);
}

#endif  // CUDNNUP_HAVE_INSTALL

std::string fake_pe(uint16_t machine, size_t size) {
  std::string pe = build_pe_dll(machine, {"KERNEL32.dll"});
  if (pe.size() < size) pe.resize(size, '\0');
  return pe;
}

std::vector<FakeEntry> official_entries(const OfficialLayout& l) {
  std::vector<FakeEntry> out;
  std::string t = l.top + "/";
  std::string ver = std::to_string(l.major) + "." + std::to_string(l.minor) + "." + std::to_string(l.patch);
  std::string m = std::to_string(l.major);
  out.push_back({t, EntryKind::kDirectory, {}, {}});
  out.push_back({t + "include/", EntryKind::kDirectory, {}, {}});
  out.push_back({t + "include/cudnn_version.h", EntryKind::kFile, cudnn_version_header(l.major, l.minor, l.patch), {}});
  out.push_back({t + "include/cudnn.h", EntryKind::kFile, "#include \"cudnn_version.h\"\n", {}});
  std::vector<std::string> comps = {""};
  for (const auto& c : l.major == 8 ? cudnn8_components() : cudnn9_components()) comps.push_back("_" + c);
  for (size_t i = 1; i < comps.size(); ++i) {
    out.push_back({t + "include/cudnn" + comps[i] + ".h", EntryKind::kFile, "/* cudnn" + comps[i] + " */\n", {}});
  }
  if (!l.windows) {
    out.push_back({t + "lib/", EntryKind::kDirectory, {}, {}});
    for (const auto& c : comps) {
      std::string soname = "libcudnn" + c + ".so." + m;
      std::string real = "libcudnn" + c + ".so." + ver;
      out.push_back({t + "lib/" + real, EntryKind::kFile, read_file_bytes(fixture_lib(l.stub_variant, soname)), {}});
      out.push_back({t + "lib/" + soname, EntryKind::kSymlink, {}, real});
      out.push_back({t + "lib/libcudnn" + c + ".so", EntryKind::kSymlink, {}, soname});
    }
  } else {
    std::string bin = l.windows_bin_x64 ? "bin/x64/" : "bin/";
    out.push_back({t + "bin/", EntryKind::kDirectory, {}, {}});
    if (l.windows_bin_x64) out.push_back({t + bin, EntryKind::kDirectory, {}, {}});
    out.push_back({t + "lib/x64/", EntryKind::kDirectory, {}, {}});
    for (const auto& c : comps) {
      out.push_back({t + bin + "cudnn" + c + "64_" + m + ".dll", EntryKind::kFile, fake_pe(), {}});
      out.push_back({t + "lib/x64/cudnn" + c + ".lib", EntryKind::kFile, "!<arch>\n/ import lib", {}});
      out.push_back({t + "lib/x64/cudnn" + c + "64_" + m + ".lib", EntryKind::kFile, "!<arch>\n/ import lib", {}});
    }
  }
  out.push_back({t + "LICENSE", EntryKind::kFile, "NVIDIA Software License Agreement (test copy)\n", {}});
  return out;
}

}  // namespace cudnnup::testing
