// `router filter` (docs/mail-flow.md): the message passes through byte for byte with the verdict
// added at the end of its header block, in its own line endings; a sender's X-Router-* headers
// are removed first; a message that cannot be classified passes through with X-Router-Error and
// exit 0. Then real deliveries: procmail and maildrop run the recipes of docs/mail-flow.md and
// file each message into a Maildir folder named by its label (skipped where they are missing),
// procmail also through routerc and a running `router serve`; Dovecot's Sieve the same way.
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "input/headers.h"
#include "serve_process.h"
#include "test_support.h"

namespace router {
namespace {

namespace fs = std::filesystem;
using test::quote;
using test::run_router;
using test::slurp;
using test::spit;
using test::TempDir;

TEST(Headers, FieldsGoAfterTheLastHeaderAndTheRestIsKept) {
  const std::string m = "From: a@b.c\nSubject: hi\n\nbody\n\nmore\n";
  EXPECT_EQ(stamp_headers(m, "X-Router-", {"X-Router-Label: x"}),
            "From: a@b.c\nSubject: hi\nX-Router-Label: x\n\nbody\n\nmore\n");
}

TEST(Headers, CrlfMessagesGetCrlfFields) {
  const std::string m = "From: a@b.c\r\nSubject: hi\r\n\r\nbody\r\n";
  EXPECT_EQ(stamp_headers(m, "X-Router-", {"X-Router-Label: x", "X-Router-Confidence: 1"}),
            "From: a@b.c\r\nSubject: hi\r\nX-Router-Label: x\r\nX-Router-Confidence: 1\r\n\r\n"
            "body\r\n");
}

TEST(Headers, SendersOwnRouterHeadersAreRemovedWithTheirFoldedLines) {
  const std::string m =
      "From: a@b.c\nx-router-label: refund_item\nX-Router-Error: a\n  folded\tline\n"
      "Subject: hi\n\tfolded subject\n\nX-Router-Label: in the body stays\n";
  EXPECT_EQ(stamp_headers(m, "X-Router-", {"X-Router-Label: y"}),
            "From: a@b.c\nSubject: hi\n\tfolded subject\nX-Router-Label: y\n\n"
            "X-Router-Label: in the body stays\n");
}

TEST(Headers, EnvelopeLineHeadersOnlyAndPlainText) {
  EXPECT_EQ(
      stamp_headers("From a@b.c Mon Dec  1 10:00:00 2026\nSubject: s\n\nb", "X-R-", {"X-R: 1"}),
      "From a@b.c Mon Dec  1 10:00:00 2026\nSubject: s\nX-R: 1\n\nb");
  EXPECT_EQ(stamp_headers("Subject: s", "X-R-", {"X-R: 1"}), "Subject: s\nX-R: 1\n");
  EXPECT_EQ(stamp_headers("just text\n", "X-R-", {"X-R: 1"}), "X-R: 1\n\njust text\n");
}

TEST(Headers, ValuesAreOneLineOfAscii) {
  EXPECT_EQ(header_value("a\r\nX-Router-Label: b\t\xe2\x82\xb9"), "a X-Router-Label: b ???");
  EXPECT_EQ(header_value(std::string(500, 'x')).size(), 200u);
}

class Filter : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const std::string path = tmp_.path(name + ".eml");
    spit(path, text);
    return path;
  }
  test::CommandResult filter(const std::string& path, const std::string& args = "") {
    return run_router("filter " + args, tmp_.dir(), path);
  }
  TempDir tmp_{"router_filter"};
};

TEST_F(Filter, MessagePassesThroughWithTheVerdict) {
  const std::string in =
      "From: Asha <asha@example.in>\r\nSubject: order CR-10231\r\nX-Router-Label: cancel_order\r\n"
      "\r\nRefund the delivery fee, not the cake.\r\n\r\n-- \r\nAsha\r\n";
  const auto r = filter(write("m", in), "-k 2");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string head = "From: Asha <asha@example.in>\r\nSubject: order CR-10231\r\n";
  ASSERT_EQ(r.out.substr(0, head.size()), head);
  const std::string body = "\r\nRefund the delivery fee, not the cake.\r\n\r\n-- \r\nAsha\r\n";
  ASSERT_GE(r.out.size(), body.size());
  EXPECT_EQ(r.out.substr(r.out.size() - body.size()), body);
  const std::string added = r.out.substr(head.size(), r.out.size() - head.size() - body.size());
  EXPECT_NE(added.find("X-Router-Label: refund_delivery_fee\r\n"), std::string::npos) << added;
  EXPECT_NE(added.find("X-Router-Confidence: 0."), std::string::npos) << added;
  EXPECT_NE(added.find("X-Router-Top-K: refund_delivery_fee 0."), std::string::npos) << added;
  EXPECT_EQ(added.find("X-Router-Label: cancel_order"), std::string::npos)
      << "the sender's label survived";
  EXPECT_EQ(added.find("X-Router-Label:"), added.rfind("X-Router-Label:")) << added;
}

TEST_F(Filter, UnclassifiableMessagePassesThroughWithTheReason) {
  // No words at all, and a model with no `other` label to give it.
  const std::string image_only =
      "From: a@b.c\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n\niVBORw0KGgo=\n";
  const std::string tiny = test::source_path("tests/fixtures/models/tiny.json");
  const auto r = filter(write("img", image_only), "-m " + quote(tiny));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "From: a@b.c\nContent-Type: image/png\nContent-Transfer-Encoding: base64\n"
            "X-Router-Error: the message: the message has no text (no text part, no subject)\n\n"
            "iVBORw0KGgo=\n");
  // A model that cannot be loaded is no reason to lose mail either.
  const std::string plain = "From: a@b.c\nSubject: where is my cake\n\nwhere is it\n";
  const auto bad_model = filter(write("p", plain), "-m " + quote(tmp_.path("missing.json")));
  EXPECT_EQ(bad_model.code, 0) << bad_model.err;
  EXPECT_NE(bad_model.out.find("X-Router-Error: cannot read"), std::string::npos) << bad_model.out;
  EXPECT_NE(bad_model.out.find("\n\nwhere is it\n"), std::string::npos) << bad_model.out;
  // Empty input: still a message out, saying why.
  const auto empty = filter(write("e", ""));
  EXPECT_EQ(empty.code, 0);
  EXPECT_EQ(empty.out.rfind("X-Router-Error: ", 0), 0u) << empty.out;
}

TEST_F(Filter, OutputThatCannotBeWrittenIsExit5) {
  const std::string in = write("m", "Subject: hi\n\nhello\n");
  const int status = std::system(
      (quote(ROUTER_BINARY) + " filter < " + quote(in) + " > /dev/full 2> /dev/null").c_str());
  EXPECT_EQ(WEXITSTATUS(status), 5);
}

// The messages delivered by procmail and maildrop below, with the label each should get.
const std::vector<std::pair<std::string, std::string>> kDeliveries = {
    {"From: a@example.in\nSubject: CR-10001\n\nRefund the delivery fee, not the cake.\n",
     "refund_delivery_fee"},
    {"From: b@example.in\nSubject: CR-10002\n\nRefund the cake, not the delivery fee.\n",
     "refund_item"},
};

// Every file under `root`/`label`/new, read whole.
std::vector<std::string> delivered(const std::string& root, const std::string& label) {
  std::vector<std::string> out;
  const fs::path dir = fs::path(root) / label / "new";
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(slurp(e.path().string()));
  return out;
}

void expect_delivered(const std::string& root) {
  for (const auto& [message, label] : kDeliveries) {
    const auto files = delivered(root, label);
    ASSERT_EQ(files.size(), 1u) << label;
    EXPECT_NE(files[0].find("X-Router-Label: " + label + "\n"), std::string::npos) << files[0];
    const std::string body = message.substr(message.find("\n\n"));
    EXPECT_NE(files[0].find(body), std::string::npos) << files[0];
  }
}

// procmail and maildrop start in the home directory of the user they run as (from the password
// file, not $HOME) and complain or fail without one, as for `nobody` (/nonexistent).
bool has_home() {
  const passwd* me = ::getpwuid(::geteuid());
  return me != nullptr && fs::is_directory(me->pw_dir);
}

TEST_F(Filter, ProcmailDeliversIntoAMaildirPerLabel) {
  if (std::system("command -v procmail > /dev/null") != 0) GTEST_SKIP() << "no procmail";
  if (!has_home()) GTEST_SKIP() << "procmail needs the user's home directory";
  const std::string mail = tmp_.path("Mail");
  fs::create_directory(mail);
  // The recipe of docs/mail-flow.md, with the paths of this test.
  const std::string rc = tmp_.path("procmailrc");
  spit(rc, "MAILDIR=" + mail + "\n:0 fw\n| " + ROUTER_BINARY +
               " filter\n:0\n* ^X-Router-Label: \\/[a-z_]+\n$MATCH/\n:0\nunlabelled/\n");
  for (const auto& [message, label] : kDeliveries) {
    const std::string path = write("msg", message);
    ASSERT_EQ(std::system(("procmail -m " + quote(rc) + " < " + quote(path)).c_str()), 0);
  }
  expect_delivered(mail);
}

// The same recipe with routerc as the filter, a `router serve` answering: the same deliveries,
// and nothing on stderr (routerc says there when it has to filter without the service).
TEST_F(Filter, ProcmailDeliversThroughRoutercAndTheService) {
  if (std::system("command -v procmail > /dev/null") != 0) GTEST_SKIP() << "no procmail";
  if (!has_home()) GTEST_SKIP() << "procmail needs the user's home directory";
  test::ServeProcess server(tmp_, {});
  ASSERT_GT(server.port(), 0) << server.log();
  const std::string mail = tmp_.path("Mail");
  fs::create_directory(mail);
  const std::string rc = tmp_.path("procmailrc");
  spit(rc, "MAILDIR=" + mail + "\n:0 fw\n| " + ROUTERC_BINARY + " --port " +
               std::to_string(server.port()) +
               "\n:0\n* ^X-Router-Label: \\/[a-z_]+\n$MATCH/\n:0\nunlabelled/\n");
  const std::string err = tmp_.path("procmail.err");
  for (const auto& [message, label] : kDeliveries) {
    const std::string path = write("msg", message);
    ASSERT_EQ(std::system(
                  ("procmail -m " + quote(rc) + " < " + quote(path) + " 2> " + quote(err)).c_str()),
              0);
    EXPECT_EQ(slurp(err), "");
  }
  expect_delivered(mail);
  EXPECT_EQ(server.stop(), 0) << server.log();
}

TEST_F(Filter, MaildropDeliversIntoAMaildirPerLabel) {
  if (std::system("command -v maildrop > /dev/null && command -v maildirmake > /dev/null") != 0) {
    GTEST_SKIP() << "no maildrop";
  }
  if (!has_home()) GTEST_SKIP() << "maildrop needs the user's home directory";
  const std::string mail = tmp_.path("Maildir");
  fs::create_directory(mail);
  const std::string rc = tmp_.path("mailfilter");
  spit(rc, "MAILDIR=\"" + mail + "\"\nxfilter \"" + ROUTER_BINARY +
               " filter\"\nif (/^X-Router-Label: *([a-z_]+)/)\n{\n  LABEL=$MATCH1\n"
               "  `test -d \"$MAILDIR/$LABEL\" || maildirmake \"$MAILDIR/$LABEL\"`\n"
               "  to \"$MAILDIR/$LABEL/\"\n}\n"
               "`test -d \"$MAILDIR/unlabelled\" || maildirmake \"$MAILDIR/unlabelled\"`\n"
               "to \"$MAILDIR/unlabelled/\"\n");
  fs::permissions(rc, fs::perms::owner_read | fs::perms::owner_write);
  for (const auto& [message, label] : kDeliveries) {
    const std::string path = write("msg", message);
    ASSERT_EQ(std::system(("maildrop " + quote(rc) + " < " + quote(path)).c_str()), 0);
  }
  expect_delivered(mail);
}

// The Sieve recipe of docs/mail-flow.md, run by Pigeonhole's sieve-test with the extprograms
// plugin and its actions carried out (-e): the filter adds the verdict and fileinto delivers into
// the folder of that name. Dovecot delivers no mail as root, so as root the test lets `nobody`
// into its own temporary folder and runs a copy of router there.
TEST_F(Filter, SieveFilesIntoAFolderPerLabel) {
  if (std::system("command -v sieve-test > /dev/null") != 0) GTEST_SKIP() << "no sieve-test";
  const bool root = ::geteuid() == 0;
  const std::string bin = tmp_.path("bin"), mail = tmp_.path("Mail");
  fs::create_directory(bin);
  fs::create_directory(mail);
  std::string router = ROUTER_BINARY;
  std::string users;
  if (root) {
    const passwd* nobody = ::getpwnam("nobody");
    const group* nogroup = ::getgrnam("nogroup");
    if (nobody == nullptr || nogroup == nullptr) GTEST_SKIP() << "no user nobody to deliver as";
    router = bin + "/router";
    fs::copy_file(ROUTER_BINARY, router);
    fs::permissions(tmp_.dir(), fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
    ASSERT_EQ(::chown(mail.c_str(), nobody->pw_uid, nogroup->gr_gid), 0);
    users = "mail_uid = nobody\nmail_gid = nogroup\n";
  }
  spit(bin + "/router-filter", "#!/bin/sh\nexec " + quote(router) + " filter\n");
  fs::permissions(bin + "/router-filter",
                  fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  const std::string conf = tmp_.path("dovecot.conf");
  spit(conf, users + "mail_home = " + mail + "\nmail_location = maildir:" + mail +
                 ":LAYOUT=fs\nplugin {\n  sieve_plugins = sieve_extprograms\n"
                 "  sieve_extensions = +vnd.dovecot.filter\n  sieve_filter_bin_dir = " +
                 bin + "\n}\n");
  // In the mail folder, where Dovecot may write the compiled script beside it.
  const std::string script = mail + "/route.sieve";
  spit(script,
       "require [\"vnd.dovecot.filter\", \"fileinto\", \"variables\", \"mailbox\"];\n"
       "filter \"router-filter\";\nif header :matches \"X-Router-Label\" \"*\" {\n"
       "  fileinto :create \"${1}\";\n}\n");
  for (const auto& [message, label] : kDeliveries) {
    const auto r = test::run_command("sieve-test -e -c " + quote(conf) + " " + quote(script) + " " +
                                         quote(write("msg", message)),
                                     tmp_.dir());
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err.find("Error"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stored mail into mailbox '" + label + "'"), std::string::npos) << r.err;
  }
  expect_delivered(mail);
}

}  // namespace
}  // namespace router
