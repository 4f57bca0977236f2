// Real email in (lib/input/mail.h): hand-made messages under tests/fixtures/mail/ against golden
// "what the model saw" files (*.expected.txt), the errors, the mbox reader, and `router classify` /
// `router batch` run on them as a user runs them.
#include "input/mail.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/errors.h"

#include "test_support.h"

namespace router {
namespace {

using router::test::parse_jsonl;
using router::test::quote;
using router::test::slurp;
using Result = router::test::CommandResult;

namespace fs = std::filesystem;

std::string fixture(const std::string& name) {
  return std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/mail/" + name;
}
const std::string kTinyModel = std::string(ROUTER_SOURCE_DIR) + "/tests/fixtures/models/tiny.json";

// ---- Golden texts ------------------------------------------------------------------------

class MailGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(MailGolden, ModelSeesExpectedText) {
  const std::string name = GetParam();
  const std::string raw = slurp(fixture(name + ".eml"));
  ASSERT_TRUE(looks_like_message(raw)) << name;
  const MailText mail = parse_message(raw, name + ".eml");
  EXPECT_EQ(mail.text + "\n", slurp(fixture(name + ".expected.txt"))) << name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, MailGolden,
                         ::testing::Values("plain_utf8", "quoted_printable", "base64", "latin1",
                                           "windows1252", "alternative", "html_only",
                                           "mixed_attachment", "quoted_reply", "signature",
                                           "unknown_charset_ascii", "crlf_plain", "bottom_reply",
                                           "inline_answers", "unmarked_quote",
                                           "html_bottom_reply"));

// The properties the golden files pin, stated directly so a regenerated file cannot hide a bug.
TEST(Mail, DecodesAndCuts) {
  auto text = [](const char* name) { return parse_message(slurp(fixture(name)), name).text; };
  EXPECT_NE(text("quoted_printable.eml").find("— ₹850 each time. Could you please refund"),
            std::string::npos);
  EXPECT_NE(text("windows1252.eml").find("“Rs. 1,250”"), std::string::npos);
  EXPECT_NE(text("latin1.eml").find("crème brûlée"), std::string::npos);
  EXPECT_EQ(text("alternative.eml").find("HTML VERSION"), std::string::npos);
  EXPECT_NE(text("html_only.eml").find("We'd like 40 cupcakes for a party & a cake for 3<4"),
            std::string::npos);
  EXPECT_EQ(text("html_only.eml").find("alert"), std::string::npos);
  EXPECT_EQ(text("mixed_attachment.eml").find("ATTACHMENT"), std::string::npos);
  EXPECT_EQ(text("quoted_reply.eml").find("wrote:"), std::string::npos);
  EXPECT_EQ(text("quoted_reply.eml").find("replace the cake"), std::string::npos);
  EXPECT_EQ(text("signature.eml").find("Vikram"), std::string::npos);
  EXPECT_EQ(text("signature.eml").find("quoted line"), std::string::npos);
}

// The customer's words below or between the lines of a '>' quote are the request; an "On ...
// wrote:" whose quote is not marked still ends the message.
TEST(Mail, KeepsRepliesBelowAndBetweenQuotes) {
  auto text = [](const char* name) { return parse_message(slurp(fixture(name)), name).text; };
  const std::string bottom = text("bottom_reply.eml");
  EXPECT_NE(bottom.find("please change the frosting"), std::string::npos);
  EXPECT_EQ(bottom.find("wrote:"), std::string::npos);
  EXPECT_EQ(bottom.find("48 hours"), std::string::npos);
  const std::string inline_answers = text("inline_answers.eml");
  EXPECT_NE(inline_answers.find("No.\n\nYes, the card please."), std::string::npos);
  EXPECT_EQ(inline_answers.find("refund"), std::string::npos);
  EXPECT_EQ(inline_answers.find("sank"), std::string::npos);
  const std::string unmarked = text("unmarked_quote.eml");
  EXPECT_NE(unmarked.find("Evening is fine."), std::string::npos);
  EXPECT_EQ(unmarked.find("replace the cake"), std::string::npos);
  const std::string html = text("html_bottom_reply.eml");  // a <blockquote> is a marked quote
  EXPECT_NE(html.find("move it to Sunday morning"), std::string::npos);
  EXPECT_EQ(html.find("bandh"), std::string::npos);
  EXPECT_EQ(html.find(">"), std::string::npos);
}

TEST(Mail, HeaderFieldsAreDecoded) {
  const MailText m = parse_message(slurp(fixture("latin1.eml")), "latin1.eml");
  EXPECT_EQ(m.subject, "Crème brûlée");
  EXPECT_EQ(m.from, "Asha Kulkarni <asha@example.in>");
  EXPECT_EQ(m.date, "Tue, 11 Nov 2026 09:15:00 +0530");
  EXPECT_NE(m.message_id.find("@example.in"), std::string::npos);
  EXPECT_EQ(m.message_id.find('<'), std::string::npos);
}

// ---- Errors ------------------------------------------------------------------------------

void expect_input_error(const std::string& raw, const std::string& where,
                        const std::string& needle) {
  try {
    parse_message(raw, where);
    ADD_FAILURE() << where << ": expected an InputError containing \"" << needle << "\"";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(where + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
  }
}

// A photo with a subject is its subject; with no words at all, the rule "no text" says why.
TEST(Mail, NoTextPartMeansTheSubjectOrNoText) {
  const MailText photo = parse_message(slurp(fixture("photo_subject.eml")), "photo_subject.eml");
  EXPECT_EQ(photo.text, "Where is my order CR-6003?");
  EXPECT_EQ(photo.rule, "");
  const MailText none = parse_message(slurp(fixture("no_text.eml")), "no_text.eml");
  EXPECT_EQ(none.text, "");
  EXPECT_EQ(none.rule, "no text");
}

// RFC 3834 and list headers mark mail no person wrote to the desk; "Auto-Submitted: no" does not.
TEST(Mail, AutomaticAndBulkMailIsNamedByItsHeader) {
  const std::string body = "Subject: Re: your order\n\nI am away until Monday.\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"From: a@b\nAuto-Submitted: auto-replied; owner-email=\"a@b\"\n",
       "Auto-Submitted: auto-replied"},
      {"From: a@b\nAuto-Submitted: Auto-Generated\n", "Auto-Submitted: auto-generated"},
      {"From: a@b\nAuto-Submitted: no\n", ""},
      {"From: a@b\nPrecedence: bulk\n", "Precedence: bulk"},
      {"From: a@b\nPrecedence: JUNK\n", "Precedence: junk"},
      {"From: a@b\nPrecedence: first-class\n", ""},
      {"From: a@b\nList-Id: <offers.shop.example>\n", "List-Id"},
      {"From: a@b\nList-Unsubscribe: <mailto:u@shop.example>\n", "List-Unsubscribe"},
      {"From: a@b\n", ""},
  };
  for (const auto& [headers, rule] : cases) {
    const MailText m = parse_message(headers + body, "m");
    EXPECT_EQ(m.rule, rule) << headers;
    EXPECT_EQ(m.text, "Re: your order\n\nI am away until Monday.") << headers;
  }
}

TEST(Mail, UnknownCharsetIsInputErrorUnlessUtf8) {
  expect_input_error(slurp(fixture("unknown_charset.eml")), "unknown_charset.eml",
                     "unknown charset \"x-klingon\"");
  // Documented fallback: a made-up label on bytes that are valid UTF-8 is read as UTF-8.
  EXPECT_NO_THROW(parse_message(slurp(fixture("unknown_charset_ascii.eml")), "ascii.eml"));
}

// A NUL byte reaches the model as a space, whatever the part's charset says (sanitize_utf8).
TEST(Mail, NulBytesBecomeSpacesWhateverTheLabel) {
  for (const std::string label :
       {"", "; charset=us-ascii", "; charset=utf-8", "; charset=x-made-up", "; charset=iso-8859-1",
        "; charset=windows-1252"}) {
    const std::string raw = "From: a@b\nContent-Type: text/plain" + label + "\n\nrefund the fee" +
                            std::string(1, '\0') + "not the cake\n";
    const MailText m = parse_message(raw, "nul.eml");
    EXPECT_EQ(m.text.find('\0'), std::string::npos) << label;
    EXPECT_NE(m.text.find("refund the fee not the cake"), std::string::npos)
        << label << ": " << m.text;
  }
}

TEST(Mail, NotAMessageIsInputError) {
  expect_input_error("just some text\n", "t", "not an email");
  expect_input_error("", "t", "not an email");
  EXPECT_EQ(parse_message("From: a@b\nSubject:\n\n   \n", "t").rule, "no text");
}

// Hostile and broken inputs end in a result or an InputError, never a crash.
TEST(Mail, BrokenInputsNeverCrash) {
  const std::string good = slurp(fixture("mixed_attachment.eml"));
  std::vector<std::string> inputs = {
      "From: a@b\nContent-Type: multipart/mixed\n\nno boundary\n",
      "From: a@b\nContent-Type: multipart/mixed; boundary=\"X\"\n\n--X\n--X\n--X--\n",
      "From: a@b\nContent-Type: text/html\n\n<p>cut off <b",
      "From: a@b\nContent-Type: text/html\n\n<script>never closed",
      "From: a@b\nContent-Type: text/html\n\n&#xFFFFFFFFFF; &#0; &#55296; &bogus; &",
      "From: a@b\nContent-Transfer-Encoding: base64\n\n!!!not base64@@@\n",
      "From: a@b\nContent-Type: text/plain; charset=utf-8\n\n\xff\xfe\xc3 bad utf-8\n",
      "From: a@b\nSubject: =?x-unknown?Q?=FF?=\n\nbody\n",
  };
  std::string nested = "From: a@b\nContent-Type: multipart/mixed; boundary=\"b0\"\n\n";
  for (int i = 0; i < 200; ++i) {
    nested += "--b" + std::to_string(i) + "\nContent-Type: multipart/mixed; boundary=\"b" +
              std::to_string(i + 1) + "\"\n\n";
  }
  inputs.push_back(nested);
  for (size_t cut = 0; cut < good.size(); cut += 97) inputs.push_back(good.substr(0, cut));
  for (size_t i = 0; i < inputs.size(); ++i) {
    try {
      const MailText m = parse_message(inputs[i], "input " + std::to_string(i));
      EXPECT_TRUE(!m.text.empty() || m.rule == "no text") << "input " << i;
    } catch (const InputError&) {
    }
  }
}

// GMime is initialised once, from whichever thread comes first; parsing is thread-safe.
TEST(Mail, ParsesOnManyThreads) {
  const std::string raw = slurp(fixture("quoted_printable.eml"));
  const std::string want = parse_message(raw, "q").text;
  std::vector<std::thread> threads;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) bad[t] += parse_message(raw, "q").text != want;
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

// ---- Detection and mbox ------------------------------------------------------------------

TEST(Mail, LooksLikeMessage) {
  EXPECT_TRUE(looks_like_message("From: a@b\nSubject: hi\n\nbody"));
  EXPECT_TRUE(looks_like_message("Received: from x\n\tby y\nMessage-ID: <1@x>\r\n\r\nbody"));
  EXPECT_TRUE(looks_like_message("From someone Tue Nov 11 2026\nSubject: hi\n\nbody"));
  EXPECT_FALSE(looks_like_message("Hi, where is my order?\n\nThanks"));
  EXPECT_FALSE(looks_like_message("Subject: refund\nplease refund me"));
  EXPECT_FALSE(looks_like_message("X-Custom: 1\n\nonly unknown headers"));
  EXPECT_FALSE(looks_like_message("From: a@b\nSubject: no blank line"));
  EXPECT_FALSE(looks_like_message(""));
  EXPECT_TRUE(looks_like_mbox("From a@b Tue Nov 11 09:11:00 2026\n"));
  EXPECT_FALSE(looks_like_mbox("From: a@b\n"));
  EXPECT_FALSE(looks_like_mbox("{\"text\": \"x\"}"));
}

TEST(Mbox, ReadsMessagesWithTheirLines) {
  MboxReader reader(fixture("inbox.mbox"));
  std::string raw;
  int64_t line = 0;
  std::vector<int64_t> lines;
  std::vector<std::string> messages;
  while (reader.next(raw, line)) {
    lines.push_back(line);
    messages.push_back(raw);
  }
  EXPECT_EQ(lines, (std::vector<int64_t>{1, 11, 22, 37}));
  ASSERT_EQ(messages.size(), 4u);
  EXPECT_EQ(messages[0].rfind("From: Sender 1", 0), 0u) << "the separator line is dropped";
  // mboxrd: ">From the tracking page" is unescaped.
  EXPECT_NE(messages[1].find("\nFrom the tracking page"), std::string::npos);
  EXPECT_EQ(parse_message(messages[3], "m4").text, "Refund\n\nI was charged twice, please refund.");
  EXPECT_EQ(parse_message(messages[2], "m3").rule, "no text");
}

TEST(Mbox, TruncatedLastMessageIsReturned) {
  const std::string path =
      (fs::temp_directory_path() / ("router_mbox_" + std::to_string(::getpid()))).string();
  std::ofstream(path, std::ios::binary)
      << "\nFrom a Tue\nFrom: a@b\nSubject: one\n\nfirst\n\nFrom b Tue\nFrom: b@c\nSubj";
  MboxReader reader(path);
  std::string raw;
  int64_t line = 0;
  ASSERT_TRUE(reader.next(raw, line));
  EXPECT_EQ(line, 2);
  EXPECT_EQ(raw, "From: a@b\nSubject: one\n\nfirst\n");
  EXPECT_EQ(reader.where(), path + ": message 1 (line 2)");
  ASSERT_TRUE(reader.next(raw, line));
  EXPECT_EQ(line, 8);
  EXPECT_EQ(raw, "From: b@c\nSubj\n");
  EXPECT_EQ(reader.where(), path + ": message 2 (line 8)");
  EXPECT_THROW(parse_message(raw, "m2"), InputError);
  EXPECT_FALSE(reader.next(raw, line));
  fs::remove(path);
}

TEST(Mbox, NotAnMboxIsInputError) {
  MboxReader reader(fixture("plain_utf8.eml"));
  std::string raw;
  int64_t line = 0;
  EXPECT_THROW(reader.next(raw, line), InputError);
}

// ---- The command line --------------------------------------------------------------------

Result router_run(const std::string& args, const std::string& stdin_file = "/dev/null") {
  const router::test::TempDir scratch("router_mail");
  return router::test::run_router(args, scratch.dir(), stdin_file);
}

TEST(MailCli, ClassifyAutoDetectsEml) {
  const Result r =
      router_run("classify -f " + quote(fixture("quoted_reply.eml")) + " -m " + quote(kTinyModel));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  EXPECT_NE(r.out.find('\t'), std::string::npos) << r.out;
  // The same as classifying the text the model saw.
  const Result plain = router_run("classify -m " + quote(kTinyModel) + " --format text -f " +
                                  quote(fixture("quoted_reply.expected.txt")));
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(r.out, plain.out);
}

TEST(MailCli, ClassifyShowTextPrintsWhatTheModelSaw) {
  const Result r = router_run("classify --show-text -m " + quote(kTinyModel) + " -f - ",
                              fixture("windows1252.eml"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << "stdout: results only";
  std::string seen;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    if (line.rfind("router: text: ", 0) == 0) seen += line.substr(14) + "\n";
  }
  EXPECT_EQ(seen, slurp(fixture("windows1252.expected.txt")));
}

// GMime (and the GLib stack under it) is opened on the first email, not at start-up: loading it
// costs every command several milliseconds (docs/benchmarks.md, "Cold start").
TEST(MailCli, GMimeIsLoadedOnlyForEmail) {
  const router::test::TempDir scratch("router_mail");
  const auto loaded = [&](const std::string& args) {
    const std::string log = scratch.path("ld.log");
    const std::string cmd = "LD_DEBUG=files LD_DEBUG_OUTPUT=" + quote(log) + " " +
                            quote(ROUTER_BINARY) + " " + args + " >/dev/null 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::string all;  // LD_DEBUG_OUTPUT appends the process id to the name
    for (const auto& f : fs::directory_iterator(scratch.dir())) {
      if (f.path().filename().string().rfind("ld.log", 0) == 0) {
        all += slurp(f.path().string());
        fs::remove(f.path());
      }
    }
    return all;
  };
  const std::string text = loaded("classify " + quote("Refund the delivery fee, not the cake."));
  ASSERT_NE(text.find("libsentencepiece.so"), std::string::npos) << "LD_DEBUG gave no log";
  EXPECT_EQ(text.find("libgmime"), std::string::npos);
  EXPECT_EQ(text.find("libsentencepiece_train"), std::string::npos);
  const std::string eml = loaded("classify -f " + quote(fixture("quoted_reply.eml")));
  EXPECT_NE(eml.find("libgmime-3.0.so"), std::string::npos);
}

TEST(MailCli, ClassifyBrokenEmlExits3) {
  const Result r =
      router_run("classify -f " + quote(fixture("no_text.eml")) + " -m " + quote(kTinyModel));
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("no_text.eml: the message has no text"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// Several inputs in one run: a Maildir (new/ then cur/, each in name order), a .eml file and
// JSON Lines; each message's record starts with its path.
TEST(MailCli, BatchTakesMaildirsEmlFilesAndJsonTogether) {
  router::test::TempDir tmp;
  namespace fs = std::filesystem;
  for (const char* sub : {"new", "cur", "tmp"}) fs::create_directories(tmp.path("Maildir/") + sub);
  fs::copy_file(fixture("plain_utf8.eml"), tmp.path("Maildir/new/2.host"));
  fs::copy_file(fixture("base64.eml"), tmp.path("Maildir/cur/1.host:2,S"));
  router::test::spit(tmp.path("Maildir/tmp/3.host"), "From: half@written\n");  // never read: tmp/
  router::test::spit(tmp.path("in.jsonl"), "{\"text\": \"where is my order\"}\n");
  const Result r =
      router_run("batch " + quote(tmp.path("Maildir")) + " " + quote(fixture("quoted_reply.eml")) +
                 " " + quote(tmp.path("in.jsonl")) + " -m " + quote(kTinyModel));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto records = parse_jsonl(r.out);
  ASSERT_EQ(records.size(), 4u) << r.out;
  EXPECT_EQ(records[0]["path"], tmp.path("Maildir/new/2.host"));
  EXPECT_EQ(records[1]["path"], tmp.path("Maildir/cur/1.host:2,S"));
  EXPECT_EQ(records[2]["path"], fixture("quoted_reply.eml"));
  EXPECT_TRUE(records[2].contains("message_id"));
  EXPECT_EQ(records[3]["text"], "where is my order");
  for (const auto& rec : records) EXPECT_TRUE(rec["prediction"]["label"].is_string());
}

// explain sees exactly the text classify sees: the same prediction for every mail fixture.
TEST(MailCli, ExplainAndClassifyAgreeOnEveryMessage) {
  int checked = 0;
  for (const auto& e : std::filesystem::directory_iterator(fixture(""))) {
    const std::string path = e.path().string();
    if (e.path().extension() != ".eml") continue;
    const Result c = router_run("classify --json --no-header-rules -f " + quote(path));
    if (c.code != 0) continue;  // an undecodable message: explain refuses it too
    const auto classified = nlohmann::json::parse(c.out);
    if (classified.contains("rule")) continue;  // no words: nothing for explain to show
    const Result x = router_run("explain --json -f " + quote(path));
    ASSERT_EQ(x.code, 0) << path << ": " << x.err;
    const auto explained = nlohmann::json::parse(x.out)["prediction"];
    EXPECT_EQ(explained["label"], classified["label"]) << path;
    EXPECT_EQ(explained["confidence"], classified["confidence"]) << path;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// --on-error fail stops at the broken message, and what came before it is on stdout.
TEST(MailCli, BatchMboxStopsAtTheBrokenMessage) {
  const Result r = router_run("batch --on-error fail " + quote(fixture("inbox.mbox")) + " -m " +
                              quote(kTinyModel));
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("inbox.mbox: message 3 (line 22): the message has no text"),
            std::string::npos)
      << r.err;
  const auto before = parse_jsonl(r.out);
  ASSERT_EQ(before.size(), 2u) << r.out;
  EXPECT_EQ(before[1]["message_id"], "m2@example.in");
}

// By default one bad message never empties a run: it becomes a record with "error", exit 6.
TEST(MailCli, BatchMboxRecordsTheBrokenMessage) {
  const Result r = router_run("batch " + quote(fixture("inbox.mbox")) + " -m " + quote(kTinyModel));
  EXPECT_EQ(r.code, 6) << r.err;
  const auto records = parse_jsonl(r.out);
  ASSERT_EQ(records.size(), 4u) << r.out;
  EXPECT_TRUE(records[0].contains("prediction"));
  EXPECT_FALSE(records[2].contains("prediction"));
  EXPECT_NE(records[2]["error"].get<std::string>().find("message 3 (line 22)"), std::string::npos);
  EXPECT_EQ(records[3]["message_id"], "m4@example.in");
}

// Each mbox numbers its own messages: the second file's broken message is its message 3 too.
TEST(MailCli, BatchNumbersEachMboxsMessagesFromOne) {
  router::test::TempDir tmp("router_mboxes");
  const std::string a = tmp.path("a.mbox"), b = tmp.path("b.mbox");
  std::filesystem::copy_file(fixture("inbox.mbox"), a);
  std::filesystem::copy_file(fixture("inbox.mbox"), b);
  const Result r = router_run("batch " + quote(a) + " " + quote(b) + " -m " + quote(kTinyModel));
  EXPECT_EQ(r.code, 6) << r.err;
  const auto records = parse_jsonl(r.out);
  ASSERT_EQ(records.size(), 8u) << r.out;
  EXPECT_EQ(records[2]["error"].get<std::string>().rfind(a + ": message 3 (line 22): ", 0), 0u)
      << records[2];
  EXPECT_EQ(records[6]["error"].get<std::string>().rfind(b + ": message 3 (line 22): ", 0), 0u)
      << records[6];
}

TEST(MailCli, BatchMboxSkipInvalidLabelsTheRest) {
  for (const std::string how : {"", "--format mbox "}) {
    const Result r = router_run("batch " + how + quote(fixture("inbox.mbox")) + " -m " +
                                quote(kTinyModel) + " --skip-invalid");
    EXPECT_EQ(r.code, 6) << r.err;
    EXPECT_NE(r.err.find("skipped"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("message 3 (line 22)"), std::string::npos) << r.err;
    const auto records = parse_jsonl(r.out);
    ASSERT_EQ(records.size(), 3u) << r.out;
    const std::vector<std::string> ids = {"m1@example.in", "m2@example.in", "m4@example.in"};
    for (size_t i = 0; i < records.size(); ++i) {
      const auto& rec = records[i];
      std::vector<std::string> keys;
      for (const auto& [k, v] : rec.items()) keys.push_back(k);
      EXPECT_EQ(keys,
                (std::vector<std::string>{"message_id", "from", "date", "subject", "prediction"}));
      EXPECT_EQ(rec["message_id"], ids[i]);
      EXPECT_TRUE(rec["prediction"]["label"].is_string());
      EXPECT_TRUE(rec["prediction"]["top_k"].is_array());
    }
    EXPECT_EQ(records[2]["subject"], "Refund");
    EXPECT_EQ(records[0]["from"], "Sender 1 <sender1@example.in>");
  }
}

TEST(MailCli, BatchMboxFromStdin) {
  const Result r =
      router_run("batch - -m " + quote(kTinyModel) + " --skip-invalid", fixture("inbox.mbox"));
  EXPECT_EQ(r.code, 6) << r.err;
  EXPECT_NE(r.err.find("stdin: message 3 (line 22)"), std::string::npos) << r.err;
  EXPECT_EQ(parse_jsonl(r.out).size(), 3u);
}

}  // namespace
}  // namespace router
