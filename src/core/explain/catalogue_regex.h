// The regex type of the catalogue: std::basic_regex with std::regex_traits<char>'s behaviour, its
// locale's facets looked up once. libstdc++'s traits call std::use_facet (a dynamic_cast) for
// every character a case-insensitive regex compares and for every character of every class it
// builds at compile time: on the dense bench log (real logs only) that was ~15% of explain's
// instructions. The same facets do the same work here, so every regex matches what it matched.
//
// Compiling a bracket expression ([a-z], \d, \s) asks the traits about each of the 256 chars:
// transform_primary (for equivalence classes) and isctype (for character classes). In the
// classic "C" locale, cudnnup's (it never sets another), both have plain answers: collation is
// the identity (strxfrm copies), and a class's answer for a char never changes, so it is asked
// of the facet once per class and thread. In any other locale the facets are asked as before.
#pragma once

#include <bitset>
#include <locale>
#include <regex>
#include <string>
#include <utility>
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
    if (classic_) {  // strxfrm in the C locale is a copy: no vector, no collate call, no heap
      string_type s(first, last);
      ctype_->tolower(s.data(), s.data() + s.size());
      return s;
    }
    std::vector<char_type> s(first, last);
    ctype_->tolower(s.data(), s.data() + s.size());
    return transform(s.data(), s.data() + s.size());
  }

  bool isctype(char_type c, char_class_type f) const {
    if (!classic_) return std::regex_traits<char>::isctype(c, f);
    return classic_class(f)[static_cast<unsigned char>(c)];
  }

 private:
  void cache_facets() {
    ctype_ = &std::use_facet<std::ctype<char_type>>(getloc());
    collate_ = &std::use_facet<std::collate<char_type>>(getloc());
    classic_ = getloc() == std::locale::classic();
  }

  // Which chars the class f holds in the classic locale, asked of the base traits once per class
  // (a catalogue uses a handful: \d, \s, \w and their negations) and thread.
  const std::bitset<256>& classic_class(char_class_type f) const {
    thread_local std::vector<std::pair<char_class_type, std::bitset<256>>> known;
    for (const auto& [cls, chars] : known) {
      if (cls == f) return chars;
    }
    std::bitset<256> chars;
    for (int c = 0; c < 256; ++c) chars[size_t(c)] = std::regex_traits<char>::isctype(char_type(c), f);
    known.emplace_back(f, chars);
    return known.back().second;
  }

  const std::ctype<char_type>* ctype_ = nullptr;      // owned by the locale the traits hold
  const std::collate<char_type>* collate_ = nullptr;
  bool classic_ = false;
};

using CatalogueRegex = std::basic_regex<char, FacetCachingRegexTraits>;
using CatalogueRegexIterator = std::regex_iterator<std::string::const_iterator, char, FacetCachingRegexTraits>;

}  // namespace cudnnup
