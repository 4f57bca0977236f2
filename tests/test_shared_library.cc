// library_symbol (lib/base/shared_library.h): GMime and SentencePiece's trainer are opened through
// it on first use, so a missing library must be a clear IoError naming what needed it, not a crash.
#include "base/shared_library.h"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "base/errors.h"

namespace router {
namespace {

TEST(SharedLibrary, FindsASymbol) {
  void* f = library_symbol("libc.so.6", "strlen", "a test needs libc");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(reinterpret_cast<size_t (*)(const char*)>(f)("four"), 4u);
}

TEST(SharedLibrary, MissingLibraryOrSymbolIsIoErrorNamingTheNeed) {
  try {
    library_symbol("libno-such-library.so.9", "f", "reading tea leaves needs libtea");
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::strstr(e.what(), "reading tea leaves needs libtea (libno-such-library.so.9): "),
              nullptr)
        << e.what();
  }
  try {
    library_symbol("libc.so.6", "no_such_function_here", "a test needs libc");
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_NE(std::strstr(e.what(), "it has no symbol no_such_function_here"), nullptr) << e.what();
  }
}

}  // namespace
}  // namespace router
