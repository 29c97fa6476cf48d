// Where every symlink of an archive really leads, decided on the final tree rather than on each
// link's own text. A link's target is walked component by component as the kernel walks it: a
// component that is itself a link is replaced by that link's target (so "a/../x" with a -> "d/e"
// is d/x, not x), chains are followed to the end, and `..` climbs from where the walk really is.
//
// The final tree is the archive's entries at the paths they will have once installed:
//   store mode   below the version directory; a walk may not climb above it, and every
//                component must be an entry of the archive (or a folder implied by one).
//   merge mode   at their real paths in the toolkit (the toolkit's own links in the destination
//                folders resolved, e.g. lib64 -> targets/x86_64-linux/lib); a walk may pass
//                only through the files and folders this install puts there and their parent
//                folders, and must end on a file this install puts there.
//
// Besides, every name that says "library" (libcudnn*.so*, cudnn*.dll, libcudnn*.a, cudnn*.lib)
// must end on a file whose name says the same library (same component, same kind): a
// libcudnn.so.9 leading to ../LICENSE, or to another sub-library, is refused. The file's bytes
// (ELF/PE header, machine) are checked elsewhere (install/archive_contents.h, the staged check).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "install/archive_contents.h"

namespace cudnnup {

struct TreeLayout {
  bool merge = false;
  // An item's final path ("" = not installed). Store mode: the item's rel path. Merge mode: its
  // real absolute path in the toolkit.
  std::function<std::string(const ArchiveItem&)> place;
  std::string where;  // for messages: "the version directory", "the cuDNN files it installs into /usr/local/cuda"
};

// The archive's own tree (store mode: items at their rel paths).
TreeLayout store_layout();

class FinalTree {
 public:
  FinalTree(const std::vector<ArchiveItem>& items, const TreeLayout& layout);

  struct Resolved {
    const ArchiveItem* item = nullptr;  // the entry the walk ends on (nullptr: an implied folder)
    std::string path;                   // its final path
  };
  // Follows every link in `path` (a final path), the last component included.
  Result<Resolved> resolve(const std::string& path) const;

  // Every link resolves under the layout's rules, and every library name ends on that library.
  Status check() const;

 private:
  const ArchiveItem* find(const std::string& path) const;
  bool implied_dir(const std::string& path) const;

  TreeLayout layout_;
  std::map<std::string, const ArchiveItem*> nodes_;  // final path -> item
  std::map<std::string, bool> dirs_;                 // folders implied by the nodes' paths
  std::vector<std::pair<std::string, const ArchiveItem*>> placed_;  // in archive order
};

}  // namespace cudnnup
