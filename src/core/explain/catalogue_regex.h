// The regex type of the catalogue: std::basic_regex with std::regex_traits<char>'s behaviour, its
// locale's facets looked up once. libstdc++'s traits call std::use_facet (a dynamic_cast) for
// every character a case-insensitive regex compares and for every character of every class it
// builds at compile time: on the dense bench log (real logs only) that was ~15% of explain's
// instructions. The same facets do the same work here, so every regex matches what it matched.
#pragma once

#include <locale>
#include <regex>
#include <string>
#include <vector>

namespace cudnnup {

class FacetCachingRegexTraits : public std::regex_traits<char> {
 public:
  FacetCachingRegexTraits() { cache_facets(); }
  FacetCachingRegexTraits(const FacetCachingRegexTraits& other) : std::regex_traits<char>(other) { cache_facets(); }
  FacetCachingRegexTraits& operator=(const FacetCachingRegexTraits& other) {
    std::regex_traits<char>::operator=(other);
    cache_facets();
    return *this;
  }

  locale_type imbue(locale_type loc) {
    locale_type old = std::regex_traits<char>::imbue(loc);
    cache_facets();
    return old;
  }

  // As std::regex_traits<char>'s own (libstdc++'s regex.h), with the facets cached.
  char_type translate_nocase(char_type c) const { return ctype_->tolower(c); }

  template <typename FwdIter>
  string_type transform(FwdIter first, FwdIter last) const {
    string_type s(first, last);
    return collate_->transform(s.data(), s.data() + s.size());
  }

  template <typename FwdIter>
  string_type transform_primary(FwdIter first, FwdIter last) const {
    std::vector<char_type> s(first, last);
    ctype_->tolower(s.data(), s.data() + s.size());
    return transform(s.data(), s.data() + s.size());
  }

 private:
  void cache_facets() {
    ctype_ = &std::use_facet<std::ctype<char_type>>(getloc());
    collate_ = &std::use_facet<std::collate<char_type>>(getloc());
  }

  const std::ctype<char_type>* ctype_ = nullptr;      // owned by the locale the traits hold
  const std::collate<char_type>* collate_ = nullptr;
};

using CatalogueRegex = std::basic_regex<char, FacetCachingRegexTraits>;
using CatalogueRegexIterator = std::regex_iterator<std::string::const_iterator, char, FacetCachingRegexTraits>;

}  // namespace cudnnup
