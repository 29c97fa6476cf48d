#include "install/ca_certificates.h"

#include <array>

namespace cudnnup {
namespace {

// https://go.dev/src/crypto/x509/root_linux.go (certFiles, certDirectories), same order.
constexpr std::array<const char*, 6> kBundles = {
    "/etc/ssl/certs/ca-certificates.crt",                 // Debian, Ubuntu, Gentoo, Arch
    "/etc/pki/tls/certs/ca-bundle.crt",                   // Fedora, RHEL 6
    "/etc/ssl/ca-bundle.pem",                             // openSUSE
    "/etc/pki/tls/cacert.pem",                            // OpenELEC
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // CentOS, RHEL 7 and later
    "/etc/ssl/cert.pem",                                  // Alpine
};
constexpr std::array<const char*, 2> kDirectories = {
    "/etc/ssl/certs",      // SLES 10, SLES 11
    "/etc/pki/tls/certs",  // Fedora, RHEL
};

bool is(const FileSystem& fs, const std::string& path, FileType type) {
  auto info = fs.stat(path);
  return info && info->type == type;
}

}  // namespace

CaCertificates choose_ca_certificates(const Environment& env, const FileSystem& fs) {
  CaCertificates ca;
  auto file = env.get("SSL_CERT_FILE");
  auto dir = env.get("SSL_CERT_DIR");
  if (file && !file->empty()) ca.file = *file;
  if (dir && !dir->empty()) ca.dir = *dir;
  if (!ca.file.empty() || !ca.dir.empty()) {
    ca.from = !ca.file.empty() && !ca.dir.empty() ? "SSL_CERT_FILE and SSL_CERT_DIR"
              : !ca.file.empty()                  ? "SSL_CERT_FILE"
                                                  : "SSL_CERT_DIR";
    return ca;
  }
  for (const char* bundle : kBundles) {
    if (is(fs, bundle, FileType::kRegular)) return {bundle, "", "system"};
  }
  for (const char* directory : kDirectories) {
    if (is(fs, directory, FileType::kDirectory)) return {"", directory, "system"};
  }
  return ca;
}

std::string describe_ca_certificates(const CaCertificates& ca) {
  if (ca.file.empty() && ca.dir.empty()) {
    return "no CA certificates were found (none of the system bundles exists); set SSL_CERT_FILE to a PEM bundle";
  }
  std::string what = !ca.file.empty() && !ca.dir.empty() ? ca.file + " and " + ca.dir
                     : !ca.file.empty()                  ? ca.file
                                                         : ca.dir;
  std::string source = ca.from == "system" ? "the system's" : "from " + ca.from;
  return "trusting the certificate authorities in " + what + " (" + source +
         "); set SSL_CERT_FILE to a PEM bundle to trust others";
}

}  // namespace cudnnup
