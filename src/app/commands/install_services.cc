#include "app/commands/install_services.h"

#if CUDNNUP_HAVE_INSTALL

#include "adapters/archive_reader.h"
#include "platform/http_client.h"
#include "platform/sha256.h"
#include "platform/system.h"

namespace cudnnup {
namespace {

class Sha256Hasher final : public Hasher {
 public:
  void update(std::string_view bytes) override { h_.update(bytes); }
  std::string hex_digest() override { return h_.hex_digest(); }

 private:
  Sha256 h_;
};

}  // namespace

HasherFactory sha256_hasher() {
  return [] { return std::unique_ptr<Hasher>(new Sha256Hasher()); };
}

std::unique_ptr<TerminalProgress> progress_for(const AppContext& ctx) {
  if (ctx.options.json || ctx.options.quiet || !stderr_is_terminal()) return nullptr;
  return std::make_unique<TerminalProgress>();
}

InstallServices install_services(Progress* progress) {
  InstallServices s;
  s.open_archive = libarchive_opener();
  s.new_hasher = sha256_hasher();
  s.progress = progress;
  return s;
}

HttpClient http_client(Progress* progress) {
  HttpClient h;
  h.get_text = [](const std::string& url) { return http_get_text(url); };
  h.download = [progress](const std::string& url, const std::string& part, uint64_t expected_size, const std::string& label) {
    DownloadOptions d;
    d.progress = progress;
    d.expected_size = expected_size;
    d.label = label;
    return http_download(url, part, d);
  };
  return h;
}

}  // namespace cudnnup

#endif  // CUDNNUP_HAVE_INSTALL
