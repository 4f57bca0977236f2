// libFuzzer target: arbitrary bytes as an email (parse_message, with the format sniffers batch
// and classify use first). Promise checked: a MailText whose every field is valid UTF-8 (batch
// writes them all into JSON) and whose text has no NUL, or an InputError, never a crash, however
// broken the MIME structure, encodings or charsets.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/errors.h"
#include "input/mail.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view raw(reinterpret_cast<const char*>(data), size);
  router::looks_like_message(raw);
  router::looks_like_mbox(raw);
  try {
    const router::MailText m = router::parse_message(raw, "fuzz.eml");
    for (const std::string* field :
         {&m.text, &m.message_id, &m.from, &m.date, &m.subject, &m.rule}) {
      if (!router::is_valid_utf8(*field)) std::abort();
    }
    if (m.text.find('\0') != std::string::npos) std::abort();  // NULs reach the model as spaces
  } catch (const router::InputError&) {
  }
  return 0;
}
