// Which CA certificates a download trusts (core/install/ca_certificates.h): the user's
// SSL_CERT_FILE/SSL_CERT_DIR, else the system bundle of each Linux family, on the in-memory
// filesystem. The real download through a loopback TLS server: tests/packaging/https_download_test.py.
#include "install/ca_certificates.h"

#include <gtest/gtest.h>

#include "support/memory_fs.h"

namespace cudnnup {
namespace {

using testing::MemoryFileSystem;

Environment ca_env_with(std::map<std::string, std::string> vars) {
  Environment env;
  env.vars = std::move(vars);
  return env;
}

TEST(CaCertificates, EachFamilyGetsItsOwnBundle) {
  struct Family {
    const char* name;
    const char* bundle;
  };
  for (Family f : {Family{"Debian/Ubuntu", "/etc/ssl/certs/ca-certificates.crt"},
                   Family{"RHEL 6", "/etc/pki/tls/certs/ca-bundle.crt"},
                   Family{"openSUSE", "/etc/ssl/ca-bundle.pem"},
                   Family{"RHEL 8", "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem"},
                   Family{"Alpine", "/etc/ssl/cert.pem"}}) {
    MemoryFileSystem fs;
    fs.add_dir("/etc/ssl/certs");  // every family has some directory; the bundle wins over it
    fs.add_file(f.bundle, "-----BEGIN CERTIFICATE-----\n");
    CaCertificates ca = choose_ca_certificates(ca_env_with({}), fs);
    EXPECT_EQ(ca.file, f.bundle) << f.name;
    EXPECT_EQ(ca.dir, "") << f.name;
    EXPECT_EQ(ca.from, "system") << f.name;
  }
}

TEST(CaCertificates, TheFirstBundleInGosOrderWinsWhereSeveralExist) {
  MemoryFileSystem fs;
  fs.add_file("/etc/ssl/cert.pem");
  fs.add_file("/etc/pki/tls/certs/ca-bundle.crt");
  EXPECT_EQ(choose_ca_certificates(ca_env_with({}), fs).file, "/etc/pki/tls/certs/ca-bundle.crt");
}

TEST(CaCertificates, ADirectoryOrALinkNamedLikeABundleIsNotABundle) {
  MemoryFileSystem fs;
  fs.add_dir("/etc/ssl/certs/ca-certificates.crt");
  fs.add_dir("/etc/pki/tls/certs");
  CaCertificates ca = choose_ca_certificates(ca_env_with({}), fs);
  EXPECT_EQ(ca.file, "");
  EXPECT_EQ(ca.dir, "/etc/ssl/certs");  // the first certificate directory that exists
}

TEST(CaCertificates, TheUsersVariablesReplaceTheSystemsBundle) {
  MemoryFileSystem fs;
  fs.add_file("/etc/ssl/certs/ca-certificates.crt");
  CaCertificates file_only = choose_ca_certificates(ca_env_with({{"SSL_CERT_FILE", "/home/u/corp.pem"}}), fs);
  EXPECT_EQ(file_only.file, "/home/u/corp.pem");
  EXPECT_EQ(file_only.dir, "");
  EXPECT_EQ(file_only.from, "SSL_CERT_FILE");
  // Only a directory: no bundle beside it (a CAINFO naming a missing file would fail the download).
  CaCertificates dir_only = choose_ca_certificates(ca_env_with({{"SSL_CERT_DIR", "/home/u/certs"}}), fs);
  EXPECT_EQ(dir_only.file, "");
  EXPECT_EQ(dir_only.dir, "/home/u/certs");
  EXPECT_EQ(dir_only.from, "SSL_CERT_DIR");
  CaCertificates both = choose_ca_certificates(ca_env_with({{"SSL_CERT_FILE", "/a.pem"}, {"SSL_CERT_DIR", "/d"}}), fs);
  EXPECT_EQ(both.from, "SSL_CERT_FILE and SSL_CERT_DIR");
  // Set but empty counts as unset, as in OpenSSL.
  EXPECT_EQ(choose_ca_certificates(ca_env_with({{"SSL_CERT_FILE", ""}}), fs).file, "/etc/ssl/certs/ca-certificates.crt");
}

TEST(CaCertificates, NothingFoundIsSaidWithTheVariableThatFixesIt) {
  MemoryFileSystem fs;
  CaCertificates ca = choose_ca_certificates(ca_env_with({}), fs);
  EXPECT_EQ(ca.file, "");
  EXPECT_EQ(ca.dir, "");
  EXPECT_NE(describe_ca_certificates(ca).find("no CA certificates were found"), std::string::npos);
  EXPECT_NE(describe_ca_certificates(ca).find("SSL_CERT_FILE"), std::string::npos);
  fs.add_file("/etc/ssl/cert.pem");
  EXPECT_EQ(describe_ca_certificates(choose_ca_certificates(ca_env_with({}), fs)),
            "trusting the certificate authorities in /etc/ssl/cert.pem (the system's); set SSL_CERT_FILE to a PEM "
            "bundle to trust others");
}

}  // namespace
}  // namespace cudnnup
