#include "diagnose/install_integrity.h"

#include "install/install_manifest.h"
#include "base/paths.h"
#include "store/store_layout.h"
#include "facts/finding_ids.h"
#include "facts/install_fix.h"

namespace cudnnup {
namespace {

constexpr size_t kNamedFiles = 8;  // files named in the title's evidence; the rest counted

std::string describe(const DamagedFile& d) {
  switch (d.damage) {
    case FileDamage::kMissing: return d.path + ": missing";
    case FileDamage::kEmpty: return d.path + ": 0 bytes (was " + std::to_string(d.expected_size) + ")";
    case FileDamage::kSizeChanged:
      return d.path + ": " + std::to_string(d.actual_size) + " bytes, was " + std::to_string(d.expected_size);
    case FileDamage::kContentChanged: return d.path + ": same size, different sha256";
    case FileDamage::kNotAFile: return d.path + ": no longer a regular file";
    case FileDamage::kLinkChanged: return d.path + ": the symbolic link is gone or points elsewhere";
  }
  return d.path;
}

}  // namespace

const char* file_damage_name(FileDamage d) {
  switch (d) {
    case FileDamage::kMissing: return "missing";
    case FileDamage::kEmpty: return "empty";
    case FileDamage::kSizeChanged: return "size_changed";
    case FileDamage::kContentChanged: return "content_changed";
    case FileDamage::kNotAFile: return "not_a_file";
    case FileDamage::kLinkChanged: return "link_changed";
  }
  return "unknown";
}

std::vector<ManifestRef> find_install_manifests(const FileSystem& fs, const std::string& store_root,
                                                const std::vector<std::string>& toolkit_roots) {
  std::vector<ManifestRef> out;
  if (!store_root.empty()) {
    std::string versions = store_root + "/versions";
    if (auto entries = fs.list_dir(versions)) {
      for (const auto& e : *entries) {
        if (e.type != FileType::kDirectory || e.name.empty() || e.name[0] == '.') continue;
        std::string dir = versions + "/" + e.name;
        std::string manifest = dir + "/" + StoreLayout::kManifestName;
        if (fs.is_file(manifest)) out.push_back({manifest, dir, "store"});
      }
    }
  }
  for (const auto& root : toolkit_roots) {
    std::string manifest = root + "/.cudnnup/manifest.json";
    if (fs.is_file(manifest)) out.push_back({manifest, root, "merge"});
  }
  return out;
}

IntegrityReport check_install_integrity(const FileSystem& fs, const ManifestRef& ref, const FileHasher* hasher) {
  IntegrityReport report;
  report.ref = ref;
  report.hashed = hasher != nullptr;
  auto manifest = read_manifest(fs, ref.manifest_path, ref.root, /*acting=*/false);
  if (!manifest) {
    report.error = manifest.error().message;
    return report;
  }
  report.id = manifest->id;
  for (const auto& f : manifest->files) {
    if (f.kind == EntryKind::kDirectory) continue;
    ++report.files_checked;
    DamagedFile d;
    d.path = paths::join(ref.root, f.path);
    d.expected_size = f.size;
    auto info = fs.lstat_below(ref.root, f.path);
    if (f.kind == EntryKind::kSymlink) {
      auto target = fs.read_link_below(ref.root, f.path);
      if (!target || (!f.link_target.empty() && *target != f.link_target)) {
        d.damage = info ? FileDamage::kLinkChanged : FileDamage::kMissing;
        report.damaged.push_back(d);
      }
      continue;
    }
    if (!info) {
      // Gone, or now reached through a link (which is not followed): either way not the file installed.
      d.damage = info.error().code == ErrorCode::kPermission ? FileDamage::kNotAFile : FileDamage::kMissing;
      report.damaged.push_back(d);
      continue;
    }
    d.actual_size = info->size;
    if (info->type != FileType::kRegular) {
      d.damage = FileDamage::kNotAFile;
    } else if (info->size == 0 && f.size > 0) {
      d.damage = FileDamage::kEmpty;
    } else if (info->size != f.size) {
      d.damage = FileDamage::kSizeChanged;
    } else if (hasher && !f.sha256.empty()) {
      auto sum = (*hasher)(ref.root, f.path);
      if (sum && *sum == f.sha256) continue;
      d.damage = sum ? FileDamage::kContentChanged : FileDamage::kMissing;  // unreadable now: as good as gone
    } else {
      continue;
    }
    report.damaged.push_back(d);
  }
  return report;
}

namespace {

// Uninstall, then install the same release again: two commands, run one after the other.
std::vector<FixStep> integrity_reinstall_steps(const IntegrityReport& r, const std::string& shown_root) {
  std::string version = r.id.substr(0, r.id.find('+'));
  size_t cuda_at = r.id.find("+cuda");
  int cuda = 0;
  if (cuda_at != std::string::npos) {
    for (size_t i = cuda_at + 5; i < r.id.size() && r.id[i] >= '0' && r.id[i] <= '9'; ++i) cuda = cuda * 10 + (r.id[i] - '0');
  }
  auto v = Version::parse(version);
  if (r.ref.mode == "merge") {
    return {fix::cudnnup({"uninstall", "--into", shown_root, "--force"}), install_fix(v.value_or(Version{}), cuda, shown_root)};
  }
  return {fix::cudnnup({"uninstall", r.id}), install_fix(v.value_or(Version{}), cuda)};
}

}  // namespace

std::vector<Finding> integrity_findings(const std::vector<IntegrityReport>& reports, bool windows) {
  std::vector<Finding> out;
  for (const auto& r : reports) {
    std::string shown_root = paths::to_native(r.ref.root, windows);
    std::string what = r.ref.mode == "merge" ? "cuDNN " + r.id + " installed into the toolkit " + shown_root
                                             : "the store's cuDNN " + r.id + " (" + shown_root + ")";
    if (!r.error.empty()) {
      Finding f;
      f.id = finding_id::kInstallManifestUnreadable;
      f.severity = Severity::kWarning;
      f.subject = r.ref.root;
      f.title = "The install manifest " + paths::to_native(r.ref.manifest_path, windows) + " cannot be read";
      f.detail = "cudnnup cannot tell whether files of this install vanished or changed: " + r.error;
      std::vector<FixStep> steps = integrity_reinstall_steps(r, shown_root);  // {uninstall, install}
      f.fix = {fix::step("Install it again (that rewrites the manifest):"), steps[1], fix::step("or remove it:"), steps[0]};
      out.push_back(f);
      continue;
    }
    if (r.damaged.empty()) continue;
    size_t missing = 0;
    for (const auto& d : r.damaged) missing += d.damage == FileDamage::kMissing || d.damage == FileDamage::kEmpty;
    Finding f;
    f.id = finding_id::kInstallFilesChanged;
    f.severity = Severity::kError;
    f.subject = r.ref.root;
    f.title = std::to_string(r.damaged.size()) + " of " + std::to_string(r.files_checked) + " files of " + what +
              " vanished or changed after install";
    f.detail = "The install manifest (" + paths::to_native(r.ref.manifest_path, windows) +
               ") records every file with its size and sha256; these no longer match. Programs that load this copy "
               "fail to find a library (Windows error 126 / \"cannot open shared object file\") or crash.";
    if (windows && missing > 0) {
      f.detail += " Files that vanish right after install on Windows are almost always taken by antivirus "
                  "(Windows Defender quarantines DLLs it mistakes for threats).";
    }
    if (!r.hashed) f.detail += " Sizes were compared; `cudnnup doctor --deep` also compares every sha256.";
    for (size_t i = 0; i < r.damaged.size() && i < kNamedFiles; ++i) {
      DamagedFile d = r.damaged[i];
      d.path = paths::to_native(d.path, windows);
      f.evidence.push_back(describe(d));
    }
    if (r.damaged.size() > kNamedFiles) {
      f.evidence.push_back("and " + std::to_string(r.damaged.size() - kNamedFiles) + " more");
    }
    if (windows) {
      f.fix = {fix::step("Windows Security > Virus & threat protection > Protection history: restore the quarantined files"),
               fix::step("Add an exclusion for " + shown_root + " (Virus & threat protection settings > Exclusions) so it does "
                         "not happen again"),
               fix::step("or put the files back:")};
    } else {
      f.fix = {fix::step("Put the files back:")};
    }
    for (auto& step : integrity_reinstall_steps(r, shown_root)) f.fix.push_back(std::move(step));
    out.push_back(f);
  }
  return out;
}

}  // namespace cudnnup
