#include "install/archive_source.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>

#include "base/paths.h"
#include "base/strings.h"
#include "base/relative_path.h"
#include "base/version.h"
#include "install/archive_name.h"
#include "install/redistrib.h"
#include "install/release_index.h"

namespace cudnnup {
namespace {

// Decides which claim the archive is checked against: NVIDIA's published one, else the mirror's,
// else --sha256. Any claim that disagrees with the one used is an error naming both.
Status settle_hashes(ResolvedSource& out, const std::string& file_name) {
  HashClaim* used = nullptr;
  for (const char* source : {"known-archives", "refreshed-known-archives", "mirror-manifest", "command-line"}) {
    for (auto& c : out.hashes) {
      if (!used && c.source == source) used = &c;
    }
  }
  if (!used) return ok_status();
  used->used = true;
  out.expected_sha256 = used->sha256;
  out.expected_from = describe_hash_claim(*used);
  for (const auto& c : out.hashes) {
    if (c.sha256 == used->sha256) continue;
    // The advice is about the claim that is least trusted of the two.
    std::string fix = used->source == "refreshed-known-archives"
                          ? "the rows `archive-info --update-known` wrote into the store disagree: delete known_archives.json there, or "
                            "refresh it from NVIDIA's own mirror"
                      : c.source == "mirror-manifest"
                          ? "the mirror does not serve NVIDIA's archive: use another mirror (or NVIDIA's own) and check where this one came from"
                          : "check where the value came from";
    return make_error(c.source == "command-line" ? ErrorCode::kUsage : ErrorCode::kCorrupt,
                      "the sha256 of " + file_name + " is not agreed on: " + out.expected_from + " is " + used->sha256 + ", but " +
                          describe_hash_claim(c) + " is " + c.sha256 + "; " + fix + ". Nothing was installed.",
                      c.where);
  }
  return ok_status();
}

// The manifest's archive for the requested platform and CUDA major, checked to be the release:
// its path stays below the mirror, and its file name is that release's archive for this platform
// and CUDA major (the install then checks the contents against the name).
Result<RedistribEntry> entry_in_manifest(const RedistribManifest& manifest, const SourceRequest& r, const std::string& release,
                                         const std::string& manifest_url) {
  auto entry = select_redistrib(manifest, r.platform_key, *r.cuda_major);
  if (!entry) return entry.error();
  auto wanted = Version::parse(release);
  auto have = Version::parse(entry->version);
  if (wanted && have && !have->has_prefix(*wanted)) {
    return make_error(ErrorCode::kCorrupt, manifest_url + " describes cuDNN " + entry->version + ", not " + release);
  }
  if (auto s = check_relative_path(entry->relative_path); !s) {
    return make_error(ErrorCode::kCorrupt, manifest_url + " gives the archive path '" + entry->relative_path +
                                               "', which does not stay below the mirror (" + s.error().message + ")");
  }
  auto name = parse_archive_name(paths::basename(entry->relative_path));
  if (!name || !wanted || !name->version.has_prefix(*wanted) || name->platform_key() != r.platform_key ||
      name->cuda_major != *r.cuda_major) {
    return make_error(ErrorCode::kCorrupt, manifest_url + " points cuDNN " + release + " for " + r.platform_key + " and CUDA " +
                                               std::to_string(*r.cuda_major) + " at " + entry->relative_path +
                                               ", which is not that release's archive");
  }
  if (entry->sha256.size() != 64) {
    return make_error(ErrorCode::kCorrupt, manifest_url + " gives no sha256 for " + entry->relative_path);
  }
  return entry;
}

std::string joined_versions(const std::vector<Version>& versions, size_t at_most) {
  std::string out;
  for (size_t i = 0; i < versions.size() && i < at_most; ++i) out += (i ? ", " : "") + versions[i].str();
  if (versions.size() > at_most) out += ", ...";
  return out;
}

// The manifest entry for a release spec: an exact release directly; a partial one (9, 9.19,
// latest) as the newest listed release that has an archive for this platform and CUDA major.
Result<RedistribEntry> find_release(const FileSystem& fs, const SourceRequest& r, const ReleaseSpec& spec, const std::vector<KnownArchive>& known,
                                    const Mirror& mirror, const HttpClient& http, ResolvedSource& out) {
  if (spec.exact) {
    auto manifest = read_manifest(fs, mirror, spec.text, http, &out.manifest_url);
    if (!manifest) return manifest.error();
    return entry_in_manifest(*manifest, r, spec.text, out.manifest_url);
  }
  std::vector<Version> candidates;
  std::string from, unlisted;
  auto listed = listed_releases(fs, mirror, http);
  if (listed) {
    candidates = matching_releases(spec, *listed);
    from = mirror.root + " lists";
    if (candidates.empty()) {
      return make_error(ErrorCode::kNotFound, "no cuDNN release on " + mirror.root + " matches '" + spec.text + "' (it lists " +
                                                  joined_versions(*listed, 8) + "); run `cudnnup list --available` to see them");
    }
  } else {
    candidates = matching_releases(spec, known_releases(known, r.platform_key, *r.cuda_major));
    from = "cudnnup's table of NVIDIA archives has";
    unlisted = "; the mirror's list of releases could not be read (" + listed.error().message + ")";
    if (candidates.empty()) {
      return make_error(ErrorCode::kNotFound, "cannot tell which release '" + spec.text + "' means: the list of releases on " + mirror.root +
                                                  " could not be read (" + listed.error().message + "), and cudnnup's table of NVIDIA " +
                                                  "archives has none for " + r.platform_key + " and CUDA " + std::to_string(*r.cuda_major) +
                                                  "; give a full release such as 9.19.0, or pass --mirror URL|DIR");
    }
  }
  // The newest listed release may lack this platform or CUDA major (a CUDA 11 build stopped at
  // 9.10), or its manifest may be missing or unusable: go down the list, a bounded number of
  // manifests (NVIDIA lists about 50 releases), and say what was skipped. A mirror that cannot be
  // reached stops the walk: older releases would only repeat it.
  constexpr size_t kMostManifests = 40;
  std::vector<std::string> skipped;  // "9.20.0 (why)"
  std::vector<std::string> details;  // the whole reason of each
  for (size_t i = 0; i < candidates.size() && i < kMostManifests; ++i) {
    std::string label = candidates[i].str();
    auto manifest = read_manifest(fs, mirror, label, http, &out.manifest_url);
    Result<RedistribEntry> entry = manifest ? entry_in_manifest(*manifest, r, label, out.manifest_url) : manifest.error();
    if (entry) {
      out.release_note = "'" + spec.text + "' is cuDNN " + label + ": " + describe_release_spec(spec) + " that " + from + " for " +
                         r.platform_key + " and CUDA " + std::to_string(*r.cuda_major) +
                         (skipped.empty() ? std::string() : " (skipped " + join(skipped, "; ") + ")") + unlisted;
      return entry;
    }
    const Error& e = entry.error();
    if (e.code != ErrorCode::kNotFound && e.code != ErrorCode::kCorrupt) {
      Error stop = e;
      stop.message = "'" + spec.text + "' was taken as cuDNN " + label + " (" + describe_release_spec(spec) + " that " + from +
                     unlisted + "), but " + e.message;
      return stop;
    }
    const char* why = !manifest ? (e.code == ErrorCode::kNotFound ? "no manifest" : "its manifest cannot be used")
                                : (e.code == ErrorCode::kNotFound ? "no such archive" : "its manifest cannot be used");
    skipped.push_back(label + " (" + why + ")");
    details.push_back(e.message);
  }
  std::string why = candidates.size() > kMostManifests
                        ? "the newest " + std::to_string(kMostManifests) + " of " + std::to_string(candidates.size()) +
                              " matching releases have none; give a narrower version (e.g. 9.19)"
                        : details.front();
  return make_error(ErrorCode::kNotFound, "no release matching '" + spec.text + "' that " + from + " has an archive for " + r.platform_key +
                                              " and CUDA " + std::to_string(*r.cuda_major) + " (" + why + ")" + unlisted +
                                              "; try another --cuda, or a full release");
}

// A file's digest, with the bytes read shown as the phase "checking sha256".
Result<std::string> counted_hash(const FileSystem& fs, const std::string& path, uint64_t size, const InstallServices& services) {
  std::atomic<uint64_t> done{0};
  ProgressPhase phase(services.progress, "checking sha256", size, [&done] { return done.load(std::memory_order_relaxed); });
  return hash_file(fs, path, services.new_hasher, &done);
}

// Downloads into cache/<file>.part and renames it into place once size and sha256 agree.
Status download_checked(FileSystem& fs, ResolvedSource& out, const std::string& cached, const HttpClient& http,
                        const InstallServices& services) {
  std::string part = cached + ".part";
  if (auto s = http.download(out.url, part, out.expected_size, out.file_name); !s) return s;
  auto info = fs.stat(part);
  if (!info) return info.error();
  if (out.expected_size && info->size != out.expected_size) {
    return make_error(ErrorCode::kIo, "the download of " + out.url + " stopped at " + std::to_string(info->size) + " of " +
                                          std::to_string(out.expected_size) + " bytes; run the same command again to continue", part);
  }
  auto h = counted_hash(fs, part, info->size, services);
  if (!h) return h.error();
  if (*h != out.expected_sha256) {
    (void)fs.remove(part);  // resuming a wrong file would never fix it
    return make_error(ErrorCode::kCorrupt, "the download of " + out.url + " has sha256 " + *h + " but " + out.expected_from + " is " +
                                               out.expected_sha256 + "; the partial file was deleted — try again, or use another mirror",
                      out.url);
  }
  if (auto s = fs.rename(part, cached); !s) return s;
  out.archive_path = cached;
  out.downloaded = true;
  return ok_status();
}

}  // namespace

std::string describe_hash_claim(const HashClaim& c) {
  if (c.source == "known-archives") return "NVIDIA's published sha256 (" + c.where + ")";
  if (c.source == "refreshed-known-archives") return "the sha256 that `archive-info --update-known` read from " + c.where;
  if (c.source == "mirror-manifest") return "the mirror's manifest (" + c.where + ")";
  return "the sha256 given with --sha256";
}

bool looks_like_version(const std::string& arg) { return parse_release_spec(arg).has_value(); }

Result<ResolvedSource> resolve_source(FileSystem& fs, const StoreLayout& store, const SourceRequest& r,
                                      const std::vector<KnownArchive>& known, const HttpClient& http,
                                      const InstallServices& services) {
  ResolvedSource out;
  auto claim_known = [&](const std::string& file_name) {
    if (const KnownArchive* k = find_known_archive(known, file_name)) {
      out.hashes.push_back({k->refreshed ? "refreshed-known-archives" : "known-archives", k->source, k->sha256, false});
      out.known_file = true;
      if (k->size) out.expected_size = k->size;
    }
  };
  auto claim_command_line = [&] {
    if (!r.sha256.empty()) out.hashes.push_back({"command-line", "--sha256", r.sha256, false});
  };
  // A file of that name wins over the version it spells; a folder named "9" does not.
  if (fs.is_file(r.arg) || !looks_like_version(r.arg)) {
    if (!fs.is_file(r.arg)) {
      return make_error(ErrorCode::kNotFound, "no such archive: " + r.arg +
                                                  " (give a .tar.xz/.zip file, or a version such as 9.1.0 with --cuda 12)", r.arg);
    }
    out.archive_path = r.arg;
    out.file_name = std::string(paths::basename(r.arg));
    claim_known(out.file_name);
    claim_command_line();
    if (auto s = settle_hashes(out, out.file_name); !s) return s.error();
    return out;
  }

  // A version: find it in NVIDIA's manifest on the mirror.
  if (!r.cuda_major) {
    return make_error(ErrorCode::kUsage, "which CUDA build of cuDNN " + r.arg + "? Add --cuda 12 or --cuda 13 (the CUDA major of your toolkit "
                                         "or framework; `cudnnup doctor` shows it)");
  }
  Mirror mirror = mirror_at(r.mirror);
  auto spec = parse_release_spec(r.arg);
  auto entry = find_release(fs, r, *spec, known, mirror, http, out);
  if (!entry) return entry.error();
  out.release = Version::parse(entry->version).value_or(Version{}).truncated(3).str();
  out.url = mirror.root + entry->relative_path;
  out.file_name = std::string(paths::basename(entry->relative_path));
  claim_known(out.file_name);
  if (!out.expected_size) out.expected_size = entry->size;
  out.hashes.push_back({"mirror-manifest", out.manifest_url, entry->sha256, false});
  claim_command_line();
  if (auto s = settle_hashes(out, out.file_name); !s) return s.error();
  if (!mirror.remote) {
    if (!fs.is_file(out.url)) return make_error(ErrorCode::kNotFound, "the mirror directory lacks " + out.url, out.url);
    out.archive_path = out.url;
    return out;
  }
  std::string cached = store.cache_dir() + "/" + out.file_name;
  if (auto info = fs.stat(cached); info && info->type == FileType::kRegular) {
    auto h = counted_hash(fs, cached, info->size, services);
    if (h && *h == out.expected_sha256) {
      out.archive_path = cached;
      out.from_cache = true;
      return out;
    }
  }
  if (r.dry_run) return out;  // would download
  if (auto s = fs.make_dirs(store.cache_dir()); !s) return s.error();
  if (auto s = download_checked(fs, out, cached, http, services); !s) return s.error();
  return out;
}

}  // namespace cudnnup
