// Reads /etc/ld.so.conf the way ldconfig does (glibc elf/ldconfig.c parse_conf): '#' comments,
// one directory per line, `include PATTERN...` lines expanded with glob(3) rules (relative
// patterns are relative to the including file's directory), duplicates ignored. The result is
// the directory list ldconfig indexes into /etc/ld.so.cache, which is where system cuDNN copies
// registered with the loader live.
#pragma once

#include <string>
#include <vector>

#include "base/filesystem.h"

namespace cudnnup {

struct LdSoConfDir {
  std::string dir;
  std::string file;  // the conf file that named it
  int line = 0;
};

struct LdSoConf {
  std::vector<LdSoConfDir> dirs;          // in ldconfig's order, first occurrence kept
  std::vector<std::string> files_read;    // the main file and every included file
  std::vector<std::string> problems;      // unreadable includes, include loops, for people
};

LdSoConf read_ld_so_conf(const FileSystem& fs, const std::string& path = "/etc/ld.so.conf");

}  // namespace cudnnup
