#include "support/memory_web.h"

namespace cudnnup::testing {

HttpClient memory_web(MemoryFileSystem& fs, std::vector<std::string>* fetched, std::vector<std::string>* downloads) {
  auto local = [](const std::string& url) { return "/remote/" + url.substr(url.find("//") + 2); };
  HttpClient http;
  http.get_text = [&fs, fetched, local](const std::string& url) -> Result<std::string> {
    if (fetched) fetched->push_back(url);
    std::string path = local(url);
    if (fs.is_dir(path)) {
      auto entries = fs.list_dir(path);
      if (!entries) return entries.error();
      std::string page = "<html><body>\n";
      for (const auto& e : entries.value()) page += "<a href='" + e.name + "'>" + e.name + "</a>\n";
      return page + "</body></html>\n";
    }
    auto text = fs.read_file(path);
    if (!text) return make_error(ErrorCode::kNotFound, url + " does not exist (HTTP 404)", url);
    return text;
  };
  http.download = [&fs, downloads, local](const std::string& url, const std::string& part, uint64_t, const std::string&) -> Status {
    if (downloads) downloads->push_back(url);
    auto bytes = fs.read_file(local(url));
    if (!bytes) return make_error(ErrorCode::kNotFound, url + " does not exist (HTTP 404)", url);
    return fs.write_file(part, *bytes, false);
  };
  return http;
}

}  // namespace cudnnup::testing
