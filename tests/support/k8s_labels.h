// Kubernetes' syntax for node labels and NFD's feature-file lines, written here from their
// documentation so that tests check cudnnup's NFD output against the rules rather than against
// cudnnup's own sanitiser:
//   https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set
//   (k8s.io/apimachinery/pkg/util/validation/validation.go: IsQualifiedName, IsValidLabelValue)
//   https://kubernetes-sigs.github.io/node-feature-discovery/v0.14/usage/customization-guide#local-feature-source
#pragma once

#include <map>
#include <string>

namespace cudnnup::testing {

// A name segment: at most 63 characters, [A-Za-z0-9] at both ends, [-A-Za-z0-9_.] between.
bool k8s_name_segment(const std::string& s);
// A DNS subdomain (RFC 1123): lowercase labels of [a-z0-9-] joined by dots, at most 253 characters.
bool k8s_dns_subdomain(const std::string& s);
// A label key: an optional DNS-subdomain prefix and '/', then a name segment.
bool k8s_label_key(const std::string& key);
// A label value: empty, or a name segment.
bool k8s_label_value(const std::string& value);

// Parses an NFD feature file (one `name[=value]` per line; `#` comments; `# +` directives) and
// records a gtest failure for every line that is not a valid label or a plain comment, for a
// label given twice, and for a missing final newline. Returns the labels.
std::map<std::string, std::string> parse_nfd_feature_file(const std::string& file);

}  // namespace cudnnup::testing
