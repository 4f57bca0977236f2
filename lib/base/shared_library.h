// Shared libraries opened on first use (dlopen) instead of being linked: each linked library
// costs every process start its symbol lookups (Debian builds them with immediate binding), and
// most commands never need GMime or SentencePiece's trainer.
#pragma once

#include <string>

namespace router {

// The address of `symbol` in `library` (a soname such as "libgmime-3.0.so.0"), opening the
// library if it is not open yet; it stays open. Throws IoError("<needed_for> (<library>): why")
// if the library cannot be opened or lacks the symbol. `needed_for` says who needs it, e.g.
// "reading email needs GMime (Debian package libgmime-3.0-0)".
void* library_symbol(const char* library, const char* symbol, const std::string& needed_for);

}  // namespace router
