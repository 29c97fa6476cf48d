#include "discover/discovery.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "facts/cudnn_files.h"
#include "facts/machines.h"
#include "binfmt/dll_inspect.h"
#include "binfmt/elf.h"
#include "base/paths.h"
#include "discover/loader_config.h"
#include "base/numbers.h"
#include "base/json_reader.h"

namespace cudnnup {
namespace {

std::vector<std::string> sorted_children(const FileSystem& fs, const std::string& dir, const std::string& prefix) {
  std::vector<std::string> out;
  auto listing = fs.list_dir(dir);
  if (!listing) return out;
  for (const auto& e : *listing) {
    if (e.name.compare(0, prefix.size(), prefix) == 0) out.push_back(dir + "/" + e.name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ---------------------------------------------------------------------------------------------
// Toolkits

void read_toolkit_version(const FileSystem& fs, Toolkit& tk) {
  if (auto text = fs.read_file(tk.root + "/version.json", 1 << 20)) {
    JsonReader reader(tk.root + "/version.json");
    JsonValue doc = reader.parse_object(*text);
    if (reader.ok()) {
      if (auto v = Version::parse(doc.object("cuda").string("version"))) {
        tk.version = *v;
        tk.version_source = "version.json";
        return;
      }
    }
  }
  if (auto text = fs.read_file(tk.root + "/version.txt", 4096)) {
    static const std::regex re(R"(CUDA Version\s+(\d+\.\d+(\.\d+)?))");
    std::smatch m;
    if (std::regex_search(*text, m, re)) {
      if (auto v = Version::parse(m[1].str())) {
        tk.version = *v;
        tk.version_source = "version.txt";
        return;
      }
    }
  }
  std::vector<std::string> headers = {tk.root + "/include/cuda.h"};
  for (const auto& t : sorted_children(fs, tk.root + "/targets", "")) headers.push_back(t + "/include/cuda.h");
  for (const auto& h : headers) {
    auto text = fs.read_file(h, 64 << 10);  // CUDA_VERSION sits near the top of cuda.h
    if (!text) continue;
    // A plain search: std::regex over 64 KB of cuda.h is slow.
    for (size_t pos = text->find("CUDA_VERSION"); pos != std::string::npos; pos = text->find("CUDA_VERSION", pos + 1)) {
      size_t line = text->rfind('\n', pos);
      std::string_view before(text->data() + (line == std::string::npos ? 0 : line + 1),
                              pos - (line == std::string::npos ? 0 : line + 1));
      if (before.find("define") == std::string_view::npos) continue;
      size_t i = pos + 12;
      while (i < text->size() && ((*text)[i] == ' ' || (*text)[i] == '\t')) ++i;
      size_t start = i;
      while (i < text->size() && std::isdigit(static_cast<unsigned char>((*text)[i]))) ++i;
      if (i == start || i - start > 9) continue;
      tk.version = decode_cuda_version_number(*checked_integer(std::string_view(*text).substr(start, i - start), 0, 999999999));
      tk.version_source = "cuda.h";
      return;
    }
  }
  // Toolkits assembled from pip wheels keep the wheels' dist-info: nvidia_cuda_runtime-13.0.96.
  for (const auto& d : sorted_children(fs, tk.root + "/dist-info", "nvidia_cuda_runtime")) {
    static const std::regex re(R"(nvidia_cuda_runtime(_cu\d+)?-(\d+)\.(\d+))");
    std::smatch m;
    std::string name(paths::basename(d));
    if (std::regex_search(name, m, re)) {
      auto major = checked_int(m[2].str(), 0, 9999), minor = checked_int(m[3].str(), 0, 9999);
      if (!major || !minor) continue;
      tk.version = Version{*major, *minor};
      tk.version_source = "dist-info";
      return;
    }
  }
}

// An nvcc alone is not enough: /usr/local/bin holds wrapper scripts on some images.
bool looks_like_toolkit(const FileSystem& fs, const std::string& root) {
  return fs.exists(root + "/include/cuda.h") || fs.exists(root + "/version.json") || fs.exists(root + "/version.txt") ||
         fs.exists(root + "/include/cuda_runtime_api.h") || fs.is_dir(root + "/nvvm");
}

// The toolkit an nvcc on PATH belongs to. Follows links, and wrapper scripts of the form
// `exec /usr/local/cuda-13.0/bin/nvcc "$@"`.
std::string toolkit_root_of_nvcc(const FileSystem& fs, const std::string& nvcc) {
  auto real = fs.canonical(nvcc);
  std::string path = real ? *real : nvcc;
  auto head = fs.read_file(path, 4096);
  if (head && head->compare(0, 2, "#!") == 0) {
    // The first absolute path in the script that ends in /bin/nvcc.
    for (size_t pos = head->find("/bin/nvcc"); pos != std::string::npos; pos = head->find("/bin/nvcc", pos + 1)) {
      size_t start = pos;
      while (start > 0 && !std::isspace(static_cast<unsigned char>((*head)[start - 1])) && (*head)[start - 1] != '"' &&
             (*head)[start - 1] != '\'') {
        --start;
      }
      if ((*head)[start] == '/' && start < pos) return head->substr(start, pos - start);
    }
  }
  return paths::parent(paths::parent(path));
}

}  // namespace

std::vector<Toolkit> find_toolkits(const FileSystem& fs, const Environment& env, std::vector<ScanIssue>* issues) {
  std::vector<std::pair<std::string, std::string>> roots;  // (path, why)
  for (const char* var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR"}) {
    if (auto v = env.get(var); v && !v->empty()) roots.emplace_back(*v, var);
  }
  if (env.windows()) {
    for (const auto& [k, v] : env.vars) {
      if (k.compare(0, 11, "CUDA_PATH_V") == 0) roots.emplace_back(v, k);
    }
    for (const auto& d : env.registry_cuda_dirs) roots.emplace_back(d, "registry");
  }
  for (const auto& dir : env.get_list("PATH")) {
    if (dir.empty()) continue;
    std::string d = paths::normalize(dir);
    std::string nvcc = d + (env.windows() ? "/nvcc.exe" : "/nvcc");
    if (fs.exists(nvcc)) roots.emplace_back(toolkit_root_of_nvcc(fs, nvcc), "nvcc on PATH");
  }
  if (env.windows()) {
    for (const char* pf : {"C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA"}) {
      for (const auto& d : sorted_children(fs, pf, "v")) roots.emplace_back(d, "Program Files");
    }
  } else {
    roots.emplace_back("/usr/local/cuda", "/usr/local/cuda");
    for (const auto& d : sorted_children(fs, "/usr/local", "cuda-")) roots.emplace_back(d, "/usr/local");
    for (const auto& d : sorted_children(fs, "/opt", "cuda")) roots.emplace_back(d, "/opt");
    for (const auto& d : sorted_children(fs, "/opt/nvidia", "cuda")) roots.emplace_back(d, "/opt/nvidia");
  }

  std::vector<Toolkit> toolkits;
  std::map<std::string, size_t> index;
  for (const auto& [raw, why] : roots) {
    std::string path = paths::normalize(raw);
    auto canonical = fs.canonical(path);
    if (!canonical) {
      if (why.compare(0, 4, "CUDA") == 0 && issues) {
        issues->push_back({path, why + " points to " + path + ", which does not exist"});
      }
      continue;
    }
    if (auto it = index.find(*canonical); it != index.end()) {
      Toolkit& tk = toolkits[it->second];
      if (path != tk.root && std::find(tk.aliases.begin(), tk.aliases.end(), path) == tk.aliases.end()) {
        tk.aliases.push_back(path);
      }
      if (std::find(tk.found_via.begin(), tk.found_via.end(), why) == tk.found_via.end()) tk.found_via.push_back(why);
      continue;
    }
    if (!looks_like_toolkit(fs, *canonical)) continue;
    Toolkit tk;
    tk.root = *canonical;
    if (path != tk.root) tk.aliases.push_back(path);
    tk.found_via.push_back(why);
    std::string nvcc = tk.root + (env.windows() ? "/bin/nvcc.exe" : "/bin/nvcc");
    if (fs.exists(nvcc)) tk.nvcc = nvcc;
    read_toolkit_version(fs, tk);
    index[tk.root] = toolkits.size();
    toolkits.push_back(std::move(tk));
  }
  return toolkits;
}

std::string kernel_module_version(const FileSystem& fs) {
  auto text = fs.read_file("/proc/driver/nvidia/version", 4096);
  if (!text) return {};
  static const std::regex re(R"(Kernel Module[^0-9]*(\d{1,4}\.\d{1,4}(\.\d{1,4})?))");
  std::smatch m;
  return std::regex_search(*text, m, re) ? m[1].str() : std::string();
}

// -----------------------------------------------------------------------------------------------
// Candidate directories

std::vector<CandidateDir> candidate_library_dirs(const DiscoveryInputs& in) {
  std::vector<CandidateDir> out;
  auto add = [&](const std::string& path, const std::string& why) {
    if (!path.empty()) out.push_back({paths::normalize(path), why});
  };
  const bool win = in.env.windows();
  if (win) {
    // Searched before PATH by every program, whether PATH names them or not.
    std::string windir = in.env.windows_dir();
    add(windir + "/System32", kWindowsSystemFolderReason);
    add(windir, kWindowsSystemFolderReason);
    add(windir + "/SysWOW64", kWindows32BitSystemFolderReason);
    for (const auto& d : in.env.get_list("PATH")) {
      if (!d.empty()) add(d, "PATH");
    }
  } else if (auto llp = in.env.get("LD_LIBRARY_PATH"); llp && !llp->empty()) {
    // As ld.so reads it: ':' and ';' separate, an empty entry (":x", "x::y", "x:") is the
    // current directory and a relative entry is relative to it.
    std::string entry;
    for (size_t i = 0; i <= llp->size(); ++i) {
      if (i < llp->size() && (*llp)[i] != ':' && (*llp)[i] != ';') {
        entry += (*llp)[i];
        continue;
      }
      std::string dir = entry.empty() ? in.env.cwd : paths::is_absolute(entry) ? entry : paths::join(in.env.cwd, entry);
      add(dir, "LD_LIBRARY_PATH");
      entry.clear();
    }
  }
  for (const auto& d : in.loader_dirs) add(d, "ld.so.cache");
  if (!win) {
    // The directories ld.so searches by default, read from ld.so itself; the other usual
    // library directories are still scanned for copies, but are not on the default search path
    // (Debian's ld.so never searches /lib64, /usr/lib64 or, without ld.so.conf, /usr/local/lib).
    LoaderConfig config = read_loader_config(in.fs, true, elf_machine_of(in.env.arch));
    for (const auto& d : config.system_dirs) add(d, "system library directory");
    std::string triplet = multiarch_triplet_of(in.env.arch);
    for (const std::string& d : {"/lib/" + triplet, "/usr/lib/" + triplet, std::string("/lib64"), std::string("/usr/lib64"),
                                std::string("/lib"), std::string("/usr/lib"), std::string("/usr/local/lib")}) {
      if (std::find(config.system_dirs.begin(), config.system_dirs.end(), d) == config.system_dirs.end()) {
        add(d, "library directory not searched by default");
      }
    }
  }
  for (const auto& tk : in.toolkits) {
    std::string why = "toolkit " + tk.root;
    if (win) {
      add(tk.root + "/bin", why);
      add(tk.root + "/bin/x64", why);
    } else {
      add(tk.root + "/lib64", why);
      add(tk.root + "/lib", why);
      for (const auto& t : sorted_children(in.fs, tk.root + "/targets", "")) add(t + "/lib", why);
    }
  }
  for (const auto& pe : in.python_envs) {
    std::string why = pe.kind + " env " + pe.prefix;
    for (const auto& sp : pe.site_packages) {
      add(sp + (win ? "/nvidia/cudnn/bin" : "/nvidia/cudnn/lib"), why);
      add(sp + "/torch/lib", why);
    }
    if (pe.kind == "conda") add(pe.prefix + (win ? "/Library/bin" : "/lib"), why);
  }
  if (win) {
    // NVIDIA's graphical installer: C:/Program Files/NVIDIA/CUDNN/v9.4/bin/12.6/ (older) and
    // .../v9.19/bin/12.9/x64/ (newer), one sub-directory per CUDA version it was built for.
    for (const auto& v : sorted_children(in.fs, "C:/Program Files/NVIDIA/CUDNN", "v")) {
      for (const auto& cuda : sorted_children(in.fs, v + "/bin", "")) {
        add(cuda, "cuDNN installer " + v);
        add(cuda + "/x64", "cuDNN installer " + v);
      }
    }
  }
  if (!in.store_root.empty()) {
    for (const auto& v : sorted_children(in.fs, in.store_root + "/versions", "")) {
      add(v + (win ? "/bin" : "/lib"), "cudnnup store");
      if (win) add(v + "/bin/x64", "cudnnup store");
    }
  }
  return out;
}

// -----------------------------------------------------------------------------------------------
// Scanning

namespace {

struct DirScan {
  std::string dir;  // canonical
  std::vector<std::string> reasons;
};

RangeReader reader_for(const FileSystem& fs, const std::string& path) {
  return [&fs, path](uint64_t offset, size_t n) { return fs.read_range(path, offset, n); };
}

void inspect_file(const FileSystem& fs, const Environment& env, CudnnLibrary& lib,
                  std::map<std::string, std::pair<std::string, std::vector<std::string>>>& elf_cache) {
  auto info = fs.stat(lib.path);
  if (!info) {
    lib.dangling = lib.is_link;
    // A link whose target is missing, or one that cannot be followed (a loop: ELOOP, a folder
    // on the way that cannot be entered): the message says which.
    lib.problems.push_back(!lib.is_link                                   ? info.error().message
                           : info.error().code == ErrorCode::kNotFound ? "dangling link: its target does not exist"
                                                                         : "a link that cannot be followed: " + info.error().message);
    return;
  }
  lib.size = info->size;
  auto real = fs.canonical(lib.path);
  lib.real_path = real ? *real : lib.path;
  if (info->type != FileType::kRegular) {
    lib.problems.push_back("not a regular file");
    return;
  }
  if (env.windows()) {
    // DLLs: the PE reader's verdict, and the version from the VERSIONINFO resource, which makes
    // sub-libraries of different releases visible on Windows too.
    auto dll = inspect_dll(fs, lib.real_path);
    for (const auto& p : dll.problems) lib.problems.push_back(p);
    if (dll.file_version) {
      const auto& v = *dll.file_version;
      lib.version_from_name = Version{v[0], v[1], v[2], v[3]};
    }
    return;
  }
  auto cached = elf_cache.find(lib.real_path);
  if (cached == elf_cache.end()) {
    std::vector<std::string> problems;
    std::string soname;
    if (info->size == 0) {
      problems.push_back("empty file (0 bytes): a failed copy, download or unzip");
    } else {
      auto elf = parse_elf(reader_for(fs, lib.real_path), info->size);
      if (!elf) {
        problems.push_back(elf.error().message);
      } else {
        soname = elf->soname;
        problems = elf->problems;
        if (elf->machine != elf_machine_of(env.arch)) {
          problems.push_back("built for " + elf_machine_name(elf->machine) + ", but this machine is " + env.arch);
        }
        if (!elf->is_64bit) problems.push_back("a 32-bit library; cuDNN is 64-bit only");
      }
    }
    cached = elf_cache.emplace(lib.real_path, std::make_pair(soname, problems)).first;
  }
  lib.soname = cached->second.first;
  for (const auto& p : cached->second.second) lib.problems.push_back(p);
}

// Reads the header that belongs to a copy of `major` from `include_dir`.
bool read_header(const FileSystem& fs, const std::string& include_dir, int major, CudnnCopy& copy) {
  for (const auto& n : cudnn_version_header_names(major)) {
    std::string path = include_dir + "/" + n;
    auto text = fs.read_file(path, 1 << 20);
    if (!text) continue;
    auto hv = parse_cudnn_header_version(*text);
    if (!hv) continue;  // 8.x/9.x cudnn.h has no version macros: keep looking
    copy.header_version = hv->version;
    copy.header_path = path;
    copy.include_dir = include_dir;
    return true;
  }
  return false;
}

const Toolkit* toolkit_owning(const std::vector<Toolkit>& toolkits, const std::string& dir) {
  for (const auto& tk : toolkits) {
    if (dir.compare(0, tk.root.size() + 1, tk.root + "/") == 0) return &tk;
  }
  return nullptr;
}

// "libcudnn 9.14.0.64": the conda-meta record of the package holding a conda env's cuDNN
// (conda-forge: libcudnn from 9.x, with cudnn the meta-package of the same version; cudnn alone
// before), from the records read with the environment, else from conda-meta itself.
std::string conda_cudnn_package(const DiscoveryInputs& in, const std::string& prefix) {
  std::vector<CondaPackage> records;
  auto env = std::find_if(in.python_envs.begin(), in.python_envs.end(), [&](const PythonEnv& pe) { return pe.prefix == prefix; });
  if (env != in.python_envs.end()) records = env->conda_packages;
  else records = read_conda_packages(in.fs, prefix, {"libcudnn", "cudnn"});
  for (const char* name : {"libcudnn", "cudnn"}) {
    for (const auto& p : records) {
      if (p.name == name) return p.name + " " + p.version;
    }
  }
  return "";
}

void classify_copy(const DiscoveryInputs& in, CudnnCopy& copy) {
  const FileSystem& fs = in.fs;
  const std::string& dir = copy.lib_dir;
  const int major = copy.libraries.empty() ? 0 : copy.libraries.front().major;
  // Compiled on first use only: building a std::regex costs more than scanning a directory.
  auto installer_re = []() -> const std::regex& {
    static const std::regex re(R"(^(.*/NVIDIA/CUDNN/v[\d.]+)/bin/(\d+)\.(\d+)(/x64)?$)", std::regex::icase);
    return re;
  };
  auto archive_re = []() -> const std::regex& {
    static const std::regex re(R"(cudnn-[a-z0-9_-]+-(\d+\.\d+\.\d+\.\d+)_cuda(\d+)(\.\d+)?-archive)");
    return re;
  };
  std::smatch m;
  std::string up = paths::parent(dir);
  if (dir.ends_with("/site-packages/nvidia/cudnn/lib") || dir.ends_with("/site-packages/nvidia/cudnn/bin")) {
    copy.form = PackageForm::kPipWheel;
    copy.root = up;
    std::string site = paths::parent(paths::parent(up));
    for (const auto& d : sorted_children(fs, site, "nvidia_cudnn_cu")) {
      if (auto dist = parse_cudnn_dist_info(paths::basename(d))) {
        copy.package = "nvidia-cudnn-cu" + std::to_string(dist->cuda_major) + " " + dist->version.str();
        copy.cuda_major = dist->cuda_major;
        copy.cuda_major_source = "pip package name";
      }
    }
  } else if (const Toolkit* tk = toolkit_owning(in.toolkits, dir)) {
    copy.form = PackageForm::kToolkitMerged;
    copy.root = tk->root;
    // Toolkits assembled from wheels keep the cuDNN wheel's dist-info.
    for (const auto& d : sorted_children(fs, tk->root + "/dist-info", "nvidia_cudnn_cu")) {
      if (auto dist = parse_cudnn_dist_info(paths::basename(d))) {
        copy.package = "nvidia-cudnn-cu" + std::to_string(dist->cuda_major) + " " + dist->version.str();
      }
    }
  } else if (!in.store_root.empty() && dir.compare(0, in.store_root.size() + 1, in.store_root + "/") == 0) {
    copy.form = PackageForm::kStore;
    copy.root = up.size() > 4 && paths::basename(up) == "bin" ? paths::parent(up) : up;
    std::string id(paths::basename(copy.root));
    copy.package = "cudnnup " + id;
    if (auto plus = id.find("+cuda"); plus != std::string::npos) {
      std::string_view digits = std::string_view(id).substr(plus + 5);
      digits = digits.substr(0, digits.find_first_not_of("0123456789"));
      if (auto cuda = checked_int(digits, 1, 999)) {
        copy.cuda_major = *cuda;
        copy.cuda_major_source = "store entry name";
      }
    }
  } else if (fs.is_dir(up + "/conda-meta") || fs.is_dir(paths::parent(up) + "/conda-meta")) {
    copy.form = PackageForm::kConda;
    copy.root = fs.is_dir(up + "/conda-meta") ? up : paths::parent(up);
    copy.package = conda_cudnn_package(in, copy.root);
  } else if (dir.find("-archive") != std::string::npos && std::regex_search(dir, m, archive_re())) {
    copy.form = PackageForm::kArchiveTree;
    copy.root = up;
    copy.package = m[0].str();
    if (auto cuda = checked_int(m[2].str(), 1, 999)) {
      copy.cuda_major = *cuda;
      copy.cuda_major_source = "archive name";
    }
  } else if (in.env.windows() && std::regex_search(dir, m, installer_re())) {
    // C:/Program Files/NVIDIA/CUDNN/v9.19/bin/12.9/x64: headers in include/12.9.
    copy.form = PackageForm::kInstaller;
    copy.root = m[1].str();
    copy.package = "cuDNN installer " + std::string(paths::basename(copy.root));
    if (auto cuda = checked_int(m[2].str(), 1, 999)) {
      copy.cuda_major = *cuda;
      copy.cuda_major_source = "installer directory";
    }
    read_header(fs, copy.root + "/include/" + m[2].str() + "." + m[3].str(), major, copy);
  } else if (dir == "/usr/lib/" + multiarch_triplet_of(in.env.arch) || dir == "/usr/lib64" || dir == "/usr/lib" ||
             dir == "/lib/" + multiarch_triplet_of(in.env.arch) || dir == "/lib64" || dir == "/lib") {
    copy.form = PackageForm::kSystemPackage;
    copy.root = dir;
    // Debian/Ubuntu: /var/lib/dpkg/info/libcudnn9-cuda-13:amd64.list names the package.
    auto listing = fs.list_dir("/var/lib/dpkg/info");
    if (listing) {
      for (const auto& e : *listing) {
        auto deb = parse_cudnn_deb_list_name(e.name);
        if (!deb || deb->major != major) continue;
        copy.package = deb->package;
        if (deb->cuda_major) {
          copy.cuda_major = deb->cuda_major;
          copy.cuda_major_source = "Debian package name";
        }
      }
    }
  } else {
    copy.form = PackageForm::kUnknown;
    std::string_view leaf = paths::basename(dir);
    if (leaf == "x64" && paths::basename(up) == "bin") copy.root = paths::parent(up);  // archive's bin/x64 (9.18+)
    else copy.root = leaf == "lib64" || leaf == "lib" || leaf == "bin" ? up : dir;
  }

  // Headers: next to the libraries for most forms; Debian keeps them in the multiarch include dir.
  std::vector<std::string> include_dirs = {copy.root + "/include"};
  if (copy.form == PackageForm::kToolkitMerged) {
    for (const auto& t : sorted_children(fs, copy.root + "/targets", "")) include_dirs.push_back(t + "/include");
  }
  if (copy.form == PackageForm::kConda && in.env.windows()) include_dirs.insert(include_dirs.begin(), copy.root + "/Library/include");
  if (copy.form == PackageForm::kSystemPackage) {
    include_dirs = {"/usr/include/" + multiarch_triplet_of(in.env.arch), "/usr/include"};
  }
  if (up != copy.root) include_dirs.push_back(up + "/include");
  if (copy.form == PackageForm::kInstaller) include_dirs.clear();  // read above
  for (const auto& inc : include_dirs) {
    if (read_header(fs, inc, major, copy)) break;
  }
}

}  // namespace

std::vector<CudnnCopy> scan_cudnn_copies(const DiscoveryInputs& in, const std::vector<CandidateDir>& candidates,
                                         std::vector<std::string>* searched, std::vector<ScanIssue>* issues,
                                         const std::function<void(const CudnnCopy&)>& found) {
  const FileSystem& fs = in.fs;
  std::vector<DirScan> dirs;
  std::map<std::string, size_t> dir_index;
  for (const auto& c : candidates) {
    auto canonical = fs.canonical(c.path);
    if (!canonical) {
      if (canonical.error().code == ErrorCode::kPermission) issues->push_back({c.path, canonical.error().message});
      continue;
    }
    if (auto it = dir_index.find(*canonical); it != dir_index.end()) {
      auto& r = dirs[it->second].reasons;
      if (std::find(r.begin(), r.end(), c.reason) == r.end()) r.push_back(c.reason);
      continue;
    }
    dir_index[*canonical] = dirs.size();
    dirs.push_back({*canonical, {c.reason}});
  }

  std::vector<CudnnCopy> copies;
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> elf_cache;
  for (const auto& d : dirs) {
    auto listing = fs.list_dir(d.dir);
    if (!listing) {
      if (listing.error().code != ErrorCode::kNotFound) {
        issues->push_back({d.dir, listing.error().message + " — skipped; the scan carried on"});
      }
      continue;
    }
    searched->push_back(d.dir);
    // Group the cuDNN files of this directory by major version.
    std::map<int, std::vector<CudnnLibrary>> by_major;
    std::vector<CudnnLibrary> dev_links;
    // Only the cuDNN files are sorted (by name, so the order does not depend on the file system's):
    // a system library directory holds thousands of other files.
    bool shares_folder = false;
    std::vector<std::pair<const DirEntry*, CudnnFileName>> cudnn_files;
    for (const auto& e : *listing) {
      auto name = parse_cudnn_library_name(e.name);
      if (!name && e.type != FileType::kDirectory && !parse_cudnn_file_name(e.name) &&
          is_library_file_name(e.name, in.env.windows())) {
        shares_folder = true;
      }
      if (name && name->windows == in.env.windows()) cudnn_files.emplace_back(&e, std::move(*name));
    }
    std::sort(cudnn_files.begin(), cudnn_files.end(), [](const auto& a, const auto& b) { return a.first->name < b.first->name; });
    for (const auto& [entry, name] : cudnn_files) {
      const DirEntry& e = *entry;
      CudnnLibrary lib;
      lib.component = name.component;
      lib.path = d.dir + "/" + e.name;
      lib.major = name.major;
      lib.version_from_name = name.version;
      lib.is_link = e.type == FileType::kSymlink;
      inspect_file(fs, in.env, lib, elf_cache);
      if (name.dev_link) {
        // libcudnn.so: its major is that of what it points to.
        auto target = fs.canonical(lib.path);
        auto tname = target ? parse_cudnn_library_name(paths::basename(*target)) : std::nullopt;
        lib.major = tname ? tname->major : 0;
        dev_links.push_back(std::move(lib));
        continue;
      }
      by_major[lib.major].push_back(std::move(lib));
    }
    for (auto& link : dev_links) {
      int major = link.major;
      if (major == 0 && by_major.size() == 1) major = by_major.begin()->first;
      by_major[major].push_back(std::move(link));
    }
    // Highest major first: the one a user most likely cares about.
    for (auto it = by_major.rbegin(); it != by_major.rend(); ++it) {
      CudnnCopy copy;
      copy.lib_dir = d.dir;
      copy.shares_folder = shares_folder;
      copy.found_via = d.reasons;
      copy.libraries = std::move(it->second);
      for (auto& lib : copy.libraries) {
        if (lib.major == 0) lib.major = it->first;
      }
      classify_copy(in, copy);
      // Library version from names until a probe says better.
      for (const auto& lib : copy.libraries) {
        if (lib.component == "cudnn" && lib.version_from_name.known()) {
          copy.library_version = lib.version_from_name;
          copy.library_version_source = in.env.windows() ? "VERSIONINFO" : "file name";
        }
      }
      if (!copy.library_version.known()) {
        for (const auto& lib : copy.libraries) {
          if (!lib.version_from_name.known()) continue;
          auto real = parse_cudnn_library_name(paths::basename(lib.real_path));
          if (real && real->version.known()) {
            copy.library_version = real->version;
            copy.library_version_source = "file name";
            break;
          }
        }
      }
      if (found) found(copy);
      copies.push_back(std::move(copy));
    }
  }
  return copies;
}

}  // namespace cudnnup
