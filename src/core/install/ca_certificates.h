// Which certificate authorities an HTTPS download trusts on Linux. libcurl has its CA bundle's
// path compiled in (Debian's: /etc/ssl/certs/ca-certificates.crt), and the portable binary
// (scripts/build-portable.sh) runs on every Linux family, where the bundle lives elsewhere; and
// libcurl, unlike the curl command, never reads SSL_CERT_FILE or SSL_CERT_DIR. So the choice is
// made here, at run time, from the environment and the files the machine has:
//   1. SSL_CERT_FILE and/or SSL_CERT_DIR when set (OpenSSL's own variables): only those;
//   2. else the first system bundle that exists, in the order of Go's crypto/x509 (the list
//      every static Go binary relies on: https://go.dev/src/crypto/x509/root_linux.go);
//   3. else the first of its certificate directories that exists;
//   4. else nothing, and a failed verification says so.
#pragma once

#include <string>

#include "base/environment.h"
#include "base/filesystem.h"

namespace cudnnup {

struct CaCertificates {
  std::string file;  // a PEM bundle (CURLOPT_CAINFO); empty: none
  std::string dir;   // a directory of hashed certificates (CURLOPT_CAPATH); empty: none
  std::string from;  // "SSL_CERT_FILE", "SSL_CERT_DIR", "SSL_CERT_FILE and SSL_CERT_DIR", "system", or ""
};

CaCertificates choose_ca_certificates(const Environment& env, const FileSystem& fs);

// For an error message: "trusting FILE (from SSL_CERT_FILE)", or that no CA certificates were
// found, with the variable that chooses them.
std::string describe_ca_certificates(const CaCertificates& ca);

}  // namespace cudnnup
