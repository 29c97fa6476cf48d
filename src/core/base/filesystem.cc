#include "base/filesystem.h"

#include "base/paths.h"

namespace cudnnup {
namespace {

class BufferedWriter final : public FileWriter {
 public:
  BufferedWriter(FileSystem& fs, std::string path) : fs_(fs), path_(std::move(path)) {}
  Status write(std::string_view bytes) override {
    data_.append(bytes);
    return ok_status();
  }
  Status close(bool sync) override { return fs_.write_file(path_, data_, sync); }

 private:
  FileSystem& fs_;
  std::string path_;
  std::string data_;
};

}  // namespace

Result<std::unique_ptr<FileWriter>> FileSystem::create_file(const std::string& path) {
  return std::unique_ptr<FileWriter>(std::make_unique<BufferedWriter>(*this, path));
}

Status FileSystem::remove_tree(const std::string& path) {
  auto info = lstat(path);
  if (!info) return info.error();
  if (info->type == FileType::kDirectory) {
    auto entries = list_dir(path);
    if (!entries) return entries.error();
    for (const auto& e : *entries) {
      if (auto s = remove_tree(paths::join(path, e.name)); !s) return s;
    }
  }
  return remove(path);
}

Status FileSystem::make_dirs(const std::string& path) {
  if (is_dir(path)) return ok_status();
  std::string up = paths::parent(path);
  if (up != path && !up.empty() && up != ".") {
    if (auto s = make_dirs(up); !s) return s;
  }
  return make_dir(path);
}

}  // namespace cudnnup
