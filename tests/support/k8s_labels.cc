#include "support/k8s_labels.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace cudnnup::testing {

bool k8s_name_segment(const std::string& s) {
  static const std::regex name("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  return !s.empty() && s.size() <= 63 && std::regex_match(s, name);
}

bool k8s_dns_subdomain(const std::string& s) {
  static const std::regex dns("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  return !s.empty() && s.size() <= 253 && std::regex_match(s, dns);
}

bool k8s_label_key(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return k8s_name_segment(key);
  return k8s_dns_subdomain(key.substr(0, slash)) && k8s_name_segment(key.substr(slash + 1));
}

bool k8s_label_value(const std::string& value) { return value.empty() || k8s_name_segment(value); }

std::map<std::string, std::string> parse_nfd_feature_file(const std::string& file) {
  std::map<std::string, std::string> labels;
  std::istringstream in(file);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("#", 0) == 0) {
      EXPECT_NE(line.rfind("# +", 0), 0u) << "NFD reads '# +' as a directive: " << line;
      continue;
    }
    auto eq = line.find('=');
    // NFD: a line without '=' is the label with the value "true".
    std::string key = line.substr(0, eq), value = eq == std::string::npos ? "true" : line.substr(eq + 1);
    EXPECT_TRUE(k8s_label_key(key)) << "invalid label name: " << line;
    EXPECT_TRUE(k8s_label_value(value)) << "invalid label value: " << line;
    EXPECT_EQ(labels.count(key), 0u) << "label twice: " << key;
    labels[key] = value;
  }
  EXPECT_TRUE(file.empty() || file.back() == '\n') << "the last line has no newline";
  return labels;
}

}  // namespace cudnnup::testing
