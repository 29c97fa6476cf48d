// What the machine checks of `cudnnup explain` share: verdict builders, the message's variables
// as numbers and versions, and the copies a message is about, described for evidence.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/model.h"
#include "base/version.h"
#include "explain/explain_checks.h"

namespace cudnnup::check_helpers {

CheckResult holds(std::string evidence);
CheckResult ruled_out(std::string evidence);
CheckResult unknown(std::string evidence);

int var_int(const Variables& vars, const char* name);       // 0 when missing or not a number
Version var_version(const Variables& vars, const char* name);
std::string var(const Variables& vars, const char* name);

Version copy_version(const CudnnCopy& c);  // the library's version, else the header's
std::string describe(const CudnnCopy& c);  // "cuDNN 9.1.0 in /x (found via ld.so.cache)"
std::string list_copies(const std::vector<const CudnnCopy*>& copies, size_t max = 3);
// The major the message is about: from the library name or the version it names; 0 = unknown.
int wanted_major(const Variables& vars);
std::vector<const CudnnCopy*> copies_of(const Report& r, int major);  // major 0: all
std::string all_copies_sentence(const Report& r);
bool via_env_list(const CudnnCopy& c);  // found through LD_LIBRARY_PATH or PATH
const CudnnLibrary* find_component(const CudnnCopy& c, const std::string& component);
bool finding_about(const Report& r, const CudnnCopy& c, std::string_view id);
// A doctor finding with this id about a copy of `major` (0 = any), or about no copy in particular.
const Finding* finding_for_major(const Report& r, std::string_view id, int major);
std::string same_minor(const Version& v);  // "9.1"
bool older_minor(const Version& have, const Version& need);  // same major, lower major.minor

}  // namespace cudnnup::check_helpers
