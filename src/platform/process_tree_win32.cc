// Windows: one process snapshot (Toolhelp) gives every process's parent PID and image name.
// A parent that exited may have had its PID reused by a younger process; such a "parent" started
// after its child, which GetProcessTimes would show, but the cost (opening each process) buys
// little for a guess that the user can override (--shell, CUDNNUP_SHELL).
#include <windows.h>
#include <tlhelp32.h>

#include <map>
#include <set>

#include "platform/process_tree.h"
#include "platform/win32_text.h"

namespace cudnnup {

std::vector<std::string> ancestor_program_names(int depth) {
  std::vector<std::string> out;
  HANDLE snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
  if (snapshot == INVALID_HANDLE_VALUE) return out;
  struct Entry {
    DWORD parent;
    std::string name;
  };
  std::map<DWORD, Entry> processes;
  PROCESSENTRY32W e;
  e.dwSize = sizeof e;
  for (BOOL more = Process32FirstW(snapshot, &e); more; more = Process32NextW(snapshot, &e)) {
    processes[e.th32ProcessID] = {e.th32ParentProcessID, win32::narrow(e.szExeFile)};
  }
  CloseHandle(snapshot);
  std::set<DWORD> seen;
  DWORD pid = GetCurrentProcessId();
  for (int i = 0; i <= depth; ++i) {
    auto at = processes.find(pid);
    if (at == processes.end() || !seen.insert(pid).second) break;
    if (i > 0) out.push_back(at->second.name);  // i == 0 is cudnnup itself
    pid = at->second.parent;
  }
  return out;
}

}  // namespace cudnnup
