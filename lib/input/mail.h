// Real email in: an RFC 5322 message (.eml) or an mbox of them -> the text the model sees.
// MIME structure, transfer encodings (quoted-printable, base64) and charsets are decoded by
// GMime; we pick the part, strip HTML, and cut quoted replies and the signature. Every failure is
// an InputError naming where the message came from; nothing here crashes on hostile input.
#pragma once

#include <cstdint>
#include <fstream>
#include <istream>
#include <string>
#include <string_view>

namespace router {

struct MailText {
  std::string text;                             // what the model sees: "Subject\n\nbody", UTF-8
  std::string message_id, from, date, subject;  // decoded header values ("" when absent)
  // Why the message is not for the desk whatever its words say, or "": the first header that
  // marks it as automatic or bulk mail ("Auto-Submitted: auto-replied", "Precedence: bulk",
  // "List-Id", "List-Unsubscribe"), else "no text" when it has neither text nor a subject.
  std::string rule;
};

// Parses one message. The body is the first text/plain part that is not an attachment, else the
// first text/html part with tags stripped and entities decoded. Charsets are converted to UTF-8;
// ISO-8859-1 and US-ASCII labels are read as Windows-1252 (as browsers do: mail labelled Latin-1
// often carries 0x93/0x94 curly quotes). An unknown charset is accepted only if the bytes are
// valid UTF-8, otherwise it is an InputError. Removed: lines starting with '>', everything from an
// "On ... wrote:" line (or "-----Original Message-----") on, and the signature from a line
// exactly "-- " on. A message with no text part (a photo with a subject) is its subject alone;
// with no words at all, its text is empty and `rule` says "no text". Throws InputError("<where>:
// ...") for no header block, broken MIME, or an undecodable charset.
MailText parse_message(std::string_view raw, const std::string& where);

// True if the input starts with an RFC 5322 header block: header lines (at least one of From,
// Subject, Message-ID, Date, MIME-Version, Received, Return-Path, To, Content-Type) up to a blank
// line. A leading mbox "From " line is allowed.
bool looks_like_message(std::string_view start);

// True if the input starts with an mbox separator line ("From ").
bool looks_like_mbox(std::string_view start);
// True if the file `path` ("-": standard input, peeked at, not consumed) starts like an mbox.
bool file_is_mbox(const std::string& path);

// Streams the messages of an mbox file (mboxrd: ">From " lines are unescaped), one message at a
// time with std::getline, so memory stays flat for any mailbox size. Every line starting with
// "From " begins a new message. A truncated last message is still returned.
class MboxReader {
 public:
  // `path` "-" is stdin. Throws IoError if unreadable.
  explicit MboxReader(const std::string& path);
  MboxReader(const MboxReader&) = delete;
  MboxReader& operator=(const MboxReader&) = delete;

  // The next message without its "From " line, and the 1-based line of that "From " line; false
  // at the end. Throws InputError if the file does not start with a "From " line.
  bool next(std::string& raw_message, int64_t& line);
  const std::string& name() const { return name_; }
  // Where the message next() returned last is, for messages that name it:
  // "NAME: message N (line L)", N counted from 1.
  std::string where() const;

 private:
  std::string name_;
  std::ifstream file_;
  std::istream* in_;
  int64_t line_ = 0;     // lines read so far
  std::string pending_;  // a "From " line read ahead, or ""
  int64_t pending_line_ = 0;
  bool started_ = false;
  int64_t messages_ = 0;      // messages returned so far
  int64_t message_line_ = 0;  // the "From " line of the last one
};

}  // namespace router
