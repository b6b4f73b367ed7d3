/// @file src/core/module_loader.cpp
/// @brief Finding and opening lievi's optional modules (src/core/module_loader.hpp).
#include "module_loader.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace lievi::detail {
namespace {

namespace fs = std::filesystem;

/// Where this code was loaded from (the executable, or a shared library linking lievi statically).
fs::path this_object_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&this_object_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  if (ec) {  // a program started by a bare name has dli_fname without its folder
    p = fs::canonical("/proc/self/exe", ec);
    if (ec) return {};
  }
  return p.parent_path();
}

std::vector<fs::path> candidates(const ModulePlaces& w) {
  if (const char* e = std::getenv(w.env); e != nullptr && *e != '\0') return {fs::path(e)};
  std::vector<fs::path> c;
  if (const fs::path dir = this_object_dir(); !dir.empty()) {
    c.push_back(dir / w.name);
    c.push_back((dir / ".." / w.libdir / "lievi" / w.name).lexically_normal());
  }
  c.emplace_back(w.installed);
  c.emplace_back(w.built);
  return c;
}

}  // namespace

void* open_module(const ModulePlaces& where, const char* entry, bool (*accept)(const void*), std::string& tried) {
  for (const fs::path& p : candidates(where)) {
    std::error_code ec;
    if (!fs::exists(p, ec)) {
      tried += "\n  " + p.string() + " (no such file)";
      continue;
    }
    void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      const char* why = dlerror();
      tried += "\n  " + p.string() + " (" + (why ? why : "dlopen failed") + ")";
      continue;
    }
    using Entry = const void* (*)();
    auto f = reinterpret_cast<Entry>(dlsym(h, entry));
    const void* table = f ? f() : nullptr;
    if (table == nullptr || !accept(table)) {
      tried += "\n  " + p.string() + " (not the module of this lievi)";
      continue;
    }
    return const_cast<void*>(table);
  }
  return nullptr;
}

}  // namespace lievi::detail
