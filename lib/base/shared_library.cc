#include "base/shared_library.h"

#include <dlfcn.h>

#include "base/errors.h"

namespace router {

void* library_symbol(const char* library, const char* symbol, const std::string& needed_for) {
  const std::string where = needed_for + " (" + library + ")";
  // Opening an open library only counts a reference; the handle is never closed.
  void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw IoError(where + ": " + (why ? why : "cannot open it"));
  }
  // Looked up in the library and the libraries it depends on (GMime's GLib functions).
  void* address = dlsym(handle, symbol);
  if (!address) throw IoError(where + ": it has no symbol " + symbol);
  return address;
}

}  // namespace router
