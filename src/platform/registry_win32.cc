#include <windows.h>

#include "platform/registry.h"
#include "platform/win32_text.h"

namespace cudnnup {
namespace {

HKEY root_of(RegistryHive hive) { return hive == RegistryHive::kLocalMachine ? HKEY_LOCAL_MACHINE : HKEY_CURRENT_USER; }

std::string full_name(RegistryHive hive, const std::string& key) {
  return std::string(registry_hive_name(hive)) + "\\" + key;
}

Error registry_error(const std::string& what, const std::string& name, LSTATUS rc) {
  return win32::make_win32_error(what, name, static_cast<DWORD>(rc));
}

class Key {
 public:
  ~Key() {
    if (h_) RegCloseKey(h_);
  }
  HKEY* out() { return &h_; }
  HKEY get() const { return h_; }

 private:
  HKEY h_ = nullptr;
};

}  // namespace

const char* registry_hive_name(RegistryHive hive) { return hive == RegistryHive::kLocalMachine ? "HKLM" : "HKCU"; }

Result<RegistryString> read_registry_string(RegistryHive hive, const std::string& key, const std::string& name) {
  std::string where = full_name(hive, key) + "\\" + name;
  Key k;
  LSTATUS rc = RegOpenKeyExW(root_of(hive), win32::widen(key).c_str(), 0, KEY_QUERY_VALUE | KEY_WOW64_64KEY, k.out());
  if (rc != ERROR_SUCCESS) return registry_error("cannot open registry key", full_name(hive, key), rc);
  std::wstring wname = win32::widen(name);
  DWORD type = 0, bytes = 0;
  rc = RegQueryValueExW(k.get(), wname.c_str(), nullptr, &type, nullptr, &bytes);
  if (rc != ERROR_SUCCESS) return registry_error("cannot read registry value", where, rc);
  if (type != REG_SZ && type != REG_EXPAND_SZ) {
    return make_error(ErrorCode::kUnsupported, "registry value " + where + " is not a string", where);
  }
  // The value may change between the two calls (another process editing PATH): retry a little.
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::wstring data(bytes / sizeof(wchar_t) + 1, L'\0');
    DWORD size = DWORD(data.size() * sizeof(wchar_t));
    rc = RegQueryValueExW(k.get(), wname.c_str(), nullptr, &type, reinterpret_cast<BYTE*>(data.data()), &size);
    if (rc == ERROR_MORE_DATA) {
      bytes = size;
      continue;
    }
    if (rc != ERROR_SUCCESS) return registry_error("cannot read registry value", where, rc);
    data.resize(size / sizeof(wchar_t));
    while (!data.empty() && data.back() == L'\0') data.pop_back();  // stored with or without the NUL
    return RegistryString{win32::narrow(data), type == REG_EXPAND_SZ};
  }
  return make_error(ErrorCode::kIo, "registry value " + where + " kept changing while being read", where);
}

Result<std::vector<std::string>> list_registry_subkeys(RegistryHive hive, const std::string& key) {
  Key k;
  LSTATUS rc = RegOpenKeyExW(root_of(hive), win32::widen(key).c_str(), 0,
                             KEY_ENUMERATE_SUB_KEYS | KEY_QUERY_VALUE | KEY_WOW64_64KEY, k.out());
  if (rc != ERROR_SUCCESS) return registry_error("cannot open registry key", full_name(hive, key), rc);
  std::vector<std::string> names;
  for (DWORD i = 0;; ++i) {
    wchar_t name[256];  // key names are at most 255 characters
    DWORD len = 256;
    rc = RegEnumKeyExW(k.get(), i, name, &len, nullptr, nullptr, nullptr, nullptr);
    if (rc == ERROR_NO_MORE_ITEMS) break;
    if (rc != ERROR_SUCCESS) return registry_error("cannot list registry key", full_name(hive, key), rc);
    names.push_back(win32::narrow(std::wstring_view(name, len)));
  }
  return names;
}

Status write_registry_string(RegistryHive hive, const std::string& key, const std::string& name,
                             const std::string& value, bool expandable) {
  std::string where = full_name(hive, key) + "\\" + name;
  Key k;
  LSTATUS rc = RegCreateKeyExW(root_of(hive), win32::widen(key).c_str(), 0, nullptr, REG_OPTION_NON_VOLATILE,
                               KEY_SET_VALUE | KEY_WOW64_64KEY, nullptr, k.out(), nullptr);
  if (rc != ERROR_SUCCESS) return registry_error("cannot open registry key for writing", full_name(hive, key), rc);
  std::wstring data = win32::widen(value);
  // The size counts the terminating NUL, as RegSetValueExW wants for string types.
  DWORD bytes = DWORD((data.size() + 1) * sizeof(wchar_t));
  rc = RegSetValueExW(k.get(), win32::widen(name).c_str(), 0, expandable ? REG_EXPAND_SZ : REG_SZ,
                      reinterpret_cast<const BYTE*>(data.c_str()), bytes);
  if (rc != ERROR_SUCCESS) return registry_error("cannot write registry value", where, rc);
  return ok_status();
}

Status delete_registry_value(RegistryHive hive, const std::string& key, const std::string& name) {
  std::string where = full_name(hive, key) + "\\" + name;
  Key k;
  LSTATUS rc = RegOpenKeyExW(root_of(hive), win32::widen(key).c_str(), 0, KEY_SET_VALUE | KEY_WOW64_64KEY, k.out());
  if (rc == ERROR_FILE_NOT_FOUND) return ok_status();
  if (rc != ERROR_SUCCESS) return registry_error("cannot open registry key for writing", full_name(hive, key), rc);
  rc = RegDeleteValueW(k.get(), win32::widen(name).c_str());
  if (rc == ERROR_FILE_NOT_FOUND) return ok_status();
  if (rc != ERROR_SUCCESS) return registry_error("cannot delete registry value", where, rc);
  return ok_status();
}

Status broadcast_environment_change(unsigned timeout_ms) {
  DWORD_PTR result = 0;
  LRESULT ok = SendMessageTimeoutW(HWND_BROADCAST, WM_SETTINGCHANGE, 0, reinterpret_cast<LPARAM>(L"Environment"),
                                   SMTO_ABORTIFHUNG, timeout_ms, &result);
  if (ok == 0) {
    return win32::make_win32_error("WM_SETTINGCHANGE broadcast did not complete", "Environment", GetLastError());
  }
  return ok_status();
}

}  // namespace cudnnup
