// `router serve` (docs/mail-flow.md, "Service"), run as a real process on 127.0.0.1 with a free
// port and spoken to over raw sockets: /classify answers byte for byte what `router classify
// --json` prints, /batch what `router batch` writes; errors are JSON with the right status; and
// hostile clients (garbage, huge bodies, a byte a second, ten thousand dropped connections) are
// refused without stopping the service. SIGTERM lets requests in flight finish, then exit 0.
// POST /filter answers what `router filter` writes, and routerc, its client, writes the same,
// filtering here when the service does not answer.
// Every loop is bounded in count and time, and every server must exit 0 (never crash).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "input/headers.h"
#include "model/json_format.h"
#include "serve_process.h"
#include "test_support.h"

namespace router {
namespace {

using Clock = std::chrono::steady_clock;
using test::quote;
using test::run_router;
using test::slurp;
using test::spit;
using test::TempDir;

using test::seconds_since;
// A connection to 127.0.0.1:`port`, every read and write bounded by 10 s; -1 if refused.
int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv = {10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

bool send_all(int fd, const std::string& data) {
  for (size_t sent = 0; sent < data.size();) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return false;
    sent += static_cast<size_t>(n);
  }
  return true;
}

// Everything until the server closes (or 10 s pass).
std::string read_all(int fd) {
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<size_t>(n));
  return out;
}

struct Reply {
  int status = 0;  // 0: no answer
  std::string head, body;
};

Reply parse_reply(const std::string& raw) {
  Reply r;
  const size_t end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/1.1 ", 0) != 0 || end == std::string::npos) return r;
  r.status = std::stoi(raw.substr(9, 3));
  r.head = raw.substr(0, end);
  r.body = raw.substr(end + 4);
  return r;
}

// Sends `raw` on a new connection and reads the answer to the end.
Reply round_trip(int port, const std::string& raw) {
  const int fd = connect_to(port);
  if (fd < 0) return {};
  send_all(fd, raw);
  Reply r = parse_reply(read_all(fd));
  ::close(fd);
  return r;
}

std::string request(const std::string& method, const std::string& path, const std::string& body,
                    const std::string& type = "") {
  std::string r = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (!type.empty()) r += "Content-Type: " + type + "\r\n";
  if (method == "POST") r += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  return r + "\r\n" + body;
}

std::string json_text(const std::string& text) { return nlohmann::json{{"text", text}}.dump(); }

class Serve : public ::testing::Test {
 protected:
  // Starts a server; the test ends with it stopped and its exit status checked.
  test::ServeProcess& start(const std::vector<std::string>& args = {}) {
    server_ = std::make_unique<test::ServeProcess>(tmp_, args);
    EXPECT_GT(server_->port(), 0) << server_->log();
    return *server_;
  }
  void TearDown() override {
    if (server_) {
      EXPECT_EQ(server_->stop(), 0) << server_->log();
    }
  }
  Reply post(const std::string& path, const std::string& body, const std::string& type) {
    return round_trip(server_->port(), request("POST", path, body, type));
  }
  Reply get(const std::string& path) {
    return round_trip(server_->port(), request("GET", path, ""));
  }
  // The service still answers.
  void expect_healthy() {
    const Reply r = get("/healthz");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ok\n");
  }

  TempDir tmp_{"router_serve"};
  std::unique_ptr<test::ServeProcess> server_;
};

TEST_F(Serve, ClassifyAnswersWhatClassifyJsonPrints) {
  start();
  for (const std::string text :
       {"Refund the delivery fee, not the cake.", "मेरा ऑर्डर कहाँ है? where is my order CR-10231"}) {
    const Reply r = post("/classify", json_text(text), "application/json");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.head.find("Content-Type: application/json"), std::string::npos) << r.head;
    EXPECT_EQ(r.body, run_router("classify --json " + quote(text), tmp_.dir()).out);
  }
  const std::string with_k = nlohmann::json{{"text", "where is my cake"}, {"k", 2}}.dump();
  EXPECT_EQ(post("/classify", with_k, "application/json; charset=utf-8").body,
            run_router("classify --json -k 2 'where is my cake'", tmp_.dir()).out);
}

TEST_F(Serve, AnyOtherBodyIsReadAsClassifyReadsAFile) {
  start();
  const std::string eml = test::source_path("examples/message.eml");
  const Reply message = post("/classify", slurp(eml), "message/rfc822");
  EXPECT_EQ(message.status, 200) << message.body;
  EXPECT_EQ(message.body, run_router("classify --json -f " + quote(eml), tmp_.dir()).out);
  const std::string bulk = tmp_.path("bulk.eml");
  spit(bulk, "From: news@shop.example\nList-Id: <deals.shop.example>\nSubject: sale\n\nbig sale\n");
  const Reply ruled = post("/classify?k=2", slurp(bulk), "text/plain");
  EXPECT_EQ(ruled.body, run_router("classify --json -k 2 -f " + quote(bulk), tmp_.dir()).out);
  EXPECT_NE(ruled.body.find("\"rule\""), std::string::npos) << ruled.body;
  // curl -d's default type is a form; its body is still the email.
  const Reply plain = post("/classify", "where is my order", "application/x-www-form-urlencoded");
  EXPECT_EQ(plain.body, run_router("classify --json 'where is my order'", tmp_.dir()).out);
}

TEST_F(Serve, BatchAnswersWhatBatchWrites) {
  start();
  const std::string good = test::order_records(4) +
                           "{\"id\":\"x\",\"prediction\":\"old\",\"text\":\"Refund the cake\","
                           "\"lang\":\"en\"}\n\n";
  spit(tmp_.path("good.jsonl"), good);
  const Reply r = post("/batch", good, "application/x-ndjson");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, run_router("batch " + quote(tmp_.path("good.jsonl")), tmp_.dir()).out);
  // Records that cannot be labelled come back in place with "error", as batch writes them.
  const std::string bad = "{\"id\":1}\nnot json\n{\"id\":2,\"text\":\" \"}\n{\"text\":\"hi\"}\n";
  spit(tmp_.path("bad.jsonl"), bad);
  const auto served = test::parse_jsonl(post("/batch?k=1", bad, "").body);
  const auto written =
      test::parse_jsonl(run_router("batch -k 1 " + quote(tmp_.path("bad.jsonl")), tmp_.dir()).out);
  ASSERT_EQ(served.size(), 4u);
  ASSERT_EQ(written.size(), 4u);
  EXPECT_EQ(served[0]["error"], "line 1: missing \"text\"");
  EXPECT_NE(served[1]["error"].get<std::string>().find("line 2: malformed JSON (column 2"),
            std::string::npos)
      << served[1];
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(served[i].contains("error"), written[i].contains("error")) << i;
    EXPECT_EQ(served[i].value("id", nlohmann::ordered_json()),
              written[i].value("id", nlohmann::ordered_json()));
  }
  EXPECT_EQ(served[3], written[3]);
}

TEST_F(Serve, HealthzAndMetrics) {
  start();
  expect_healthy();
  post("/classify", json_text("Refund the delivery fee, not the cake."), "application/json");
  post("/classify", json_text("Refund the delivery fee, not the cake."), "application/json");
  post("/batch", "{\"text\": 1}\n", "");
  get("/nowhere");
  const Reply m = get("/metrics");
  EXPECT_EQ(m.status, 200);
  for (const char* line : {"router_http_requests_total{path=\"/classify\",status=\"200\"} 2\n",
                           "router_http_requests_total{path=\"/healthz\",status=\"200\"} 1\n",
                           "router_http_requests_total{path=\"other\",status=\"404\"} 1\n",
                           "router_errors_total{kind=\"client\"} 1\n",
                           "router_errors_total{kind=\"invalid_record\"} 1\n",
                           "router_predictions_total{label=\"refund_delivery_fee\"} 2\n",
                           "router_http_request_duration_seconds_bucket{le=\"+Inf\"} 5\n",
                           "router_http_request_duration_seconds_count 5\n",
                           "# TYPE router_http_request_duration_seconds histogram\n",
                           "router_http_requests_in_flight 1\n"}) {
    EXPECT_NE(m.body.find(line), std::string::npos) << line << "\n" << m.body;
  }
}

// A model's "none of these" label is counted as the label shown, not as the best guess behind it.
TEST_F(Serve, MetricsCountRejectedEmailsUnderTheRejectionLabel) {
  Model m = load_model(test::source_path("tests/fixtures/models/tiny.json"));
  m.set_rejection(Rejection{0.999, "none"});  // the tiny model is never that sure
  save_model(m, tmp_.path("m.json"));
  start({"-m", tmp_.path("m.json")});
  post("/classify", json_text("where is my order"), "application/json");
  post("/batch", "{\"text\": \"refund the cake\"}\n", "");
  const Reply r = get("/metrics");
  EXPECT_NE(r.body.find("router_predictions_total{label=\"none\"} 2\n"), std::string::npos)
      << r.body;
  for (const auto& label : m.labels()) {
    const std::string zero = "router_predictions_total{label=\"" + label + "\"} 0\n";
    EXPECT_NE(r.body.find(zero), std::string::npos) << zero << r.body;
  }
}

TEST_F(Serve, UnknownPathsAndMethodsAreRefused) {
  start();
  const Reply missing = get("/classify/");
  EXPECT_EQ(missing.status, 404);
  EXPECT_NE(missing.body.find("\"error\":\"no such path: /classify/"), std::string::npos);
  const Reply wrong = get("/classify");
  EXPECT_EQ(wrong.status, 405);
  EXPECT_NE(wrong.head.find("Allow: POST"), std::string::npos) << wrong.head;
  EXPECT_EQ(round_trip(server_->port(), request("DELETE", "/healthz", "")).status, 405);
  EXPECT_EQ(post("/metrics", "x", "text/plain").status, 405);
  EXPECT_EQ(post("/classify", "--x\r\n", "multipart/form-data; boundary=x").status, 415);
  expect_healthy();
}

TEST_F(Serve, BadJsonIs400NamingTheProblem) {
  start();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"text\": ", "line 1, column 10: unexpected end of input"},
      {"{\n\"text\": \"a\",\n}", "line 3, column 1"},
      {"{\"txt\": \"hi\"}", "missing \\\"text\\\""},
      {"[\"hi\"]", "not a JSON object"},
      {"{\"text\": 5}", "\\\"text\\\" is not a string"},
      {"{\"text\": \"hi\", \"k\": 0}", "\\\"k\\\" should be a whole number from 1 to 10000"},
      {"{\"text\": \"   \"}", "empty"},
      {std::string(100000, '[') + std::string(100000, ']'), "nested deeper than 64 levels"},
  };
  for (const auto& [body, problem] : cases) {
    const Reply r = post("/classify", body, "application/json");
    EXPECT_EQ(r.status, 400) << body.substr(0, 40);
    EXPECT_NE(r.body.find(problem), std::string::npos) << r.body;
    EXPECT_EQ(r.body.rfind("{\"error\":\"", 0), 0u) << r.body;
  }
  EXPECT_EQ(post("/classify?k=x", json_text("hi"), "application/json").status, 400);
  EXPECT_EQ(post("/classify", "", "text/plain").status, 400);
  EXPECT_EQ(post("/batch", "\n\n", "").status, 400);
  expect_healthy();
}

TEST_F(Serve, MalformedHttpIsRefusedAndTheServiceGoesOn) {
  start();
  const int port = server_->port();
  const std::vector<std::string> garbage = {
      std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11) + std::string(300, '\0') +
          "\r\n\r\n",
      "GET\r\n\r\n",
      "GET / HTTP/1.1\r\nno colon here\r\n" + std::string(9000, 'x') + "\r\n\r\n",
      "GET /" + std::string(10000, 'a') + " HTTP/1.1\r\n\r\n",
      "POST /classify HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
      "POST /classify HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
      "POST /classify HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
  };
  for (const auto& raw : garbage) {
    const Reply r = round_trip(port, raw);
    // Refused with an error status, or closed without an answer; never a success.
    EXPECT_TRUE(r.status == 0 || r.status >= 400) << r.status << " for " << raw.substr(0, 30);
    if (r.status) {
      EXPECT_EQ(r.body.rfind("{\"error\":", 0), 0u) << r.body;
    }
  }
  const Reply long_header =
      round_trip(port, "GET /healthz HTTP/1.1\r\nX-Long: " + std::string(80000, 'x') + "\r\n\r\n");
  EXPECT_EQ(long_header.status, 431) << long_header.body;
  std::string many = "GET /healthz HTTP/1.1\r\n";
  for (int i = 0; i < 2000; ++i)
    many += "X-Filler-" + std::to_string(i) + ": " + std::string(40, 'y') + "\r\n";
  EXPECT_EQ(round_trip(port, many + "\r\n").status, 431);
  expect_healthy();
}

TEST_F(Serve, BodiesOverTheLimitAre413) {
  start({"--max-body", "4096"});
  const int port = server_->port();
  // 100 MB announced, a little sent: refused at once, before the body is read.
  const auto t = Clock::now();
  const Reply huge =
      round_trip(port, "POST /classify HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n" +
                           std::string(1000, 'a'));
  EXPECT_EQ(huge.status, 413) << huge.body;
  EXPECT_NE(huge.body.find("the limit is 4096"), std::string::npos) << huge.body;
  EXPECT_LT(seconds_since(t), 2.0);
  EXPECT_EQ(post("/classify", std::string(5000, 'a'), "text/plain").status, 413);
  EXPECT_EQ(post("/classify", std::string(4000, 'a'), "text/plain").status, 200);
  // Chunked: the same limit, counted as it arrives.
  std::string chunked = "POST /batch HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 10; ++i) chunked += "3e8\r\n" + std::string(1000, ' ') + "\r\n";
  EXPECT_EQ(round_trip(port, chunked + "0\r\n\r\n").status, 413);
  // 100 MB streamed as fast as it goes: the server stops reading; the client sees the 413 or a
  // reset, never a hang, and the service goes on.
  const int fd = connect_to(port);
  ASSERT_GE(fd, 0);
  send_all(fd, "POST /classify HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n");
  const std::string block(1 << 16, 'b');
  size_t sent = 0;
  const auto stream_start = Clock::now();
  while (sent < 100000000 && seconds_since(stream_start) < 10 && send_all(fd, block)) {
    sent += block.size();
  }
  const Reply streamed = parse_reply(read_all(fd));
  ::close(fd);
  EXPECT_TRUE(streamed.status == 0 || streamed.status == 413) << streamed.status;
  EXPECT_LT(sent, size_t{100000000}) << "the server read the whole 100 MB";
  expect_healthy();
}

TEST_F(Serve, ASlowClientTimesOutWithoutHoldingOthersUp) {
  start({"--threads", "2", "--timeout", "2"});
  const int port = server_->port();
  Reply slow;
  std::thread trickle([&] {  // one byte a second, until the server answers (at most 5 s)
    const int fd = connect_to(port);
    const std::string req =
        request("POST", "/classify", json_text("where is my order"), "application/json");
    pollfd answer = {fd, POLLIN, 0};
    for (size_t i = 0; i < 5 && ::poll(&answer, 1, 0) == 0; ++i) {
      if (!send_all(fd, req.substr(i, 1))) break;
      ::poll(&answer, 1, 1000);
    }
    slow = parse_reply(read_all(fd));
    ::close(fd);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  for (int i = 0; i < 10; ++i) {
    const auto t = Clock::now();
    expect_healthy();
    EXPECT_LT(seconds_since(t), 0.5) << "request " << i << " waited for the slow client";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  trickle.join();
  EXPECT_EQ(slow.status, 408) << slow.body;
  EXPECT_NE(slow.body.find("did not arrive whole within 2"), std::string::npos) << slow.body;
  expect_healthy();
}

TEST_F(Serve, ThousandsOfDroppedConnectionsLeaveItServing) {
  start();
  const int port = server_->port();
  int opened = 0;
  const auto t = Clock::now();
  // 10,000 connections, or what 5 s allow: some closed at once, some reset, some after half a
  // request line.
  for (; opened < 10000 && seconds_since(t) < 5; ++opened) {
    const int fd = connect_to(port);
    ASSERT_GE(fd, 0) << "connection " << opened << " refused";
    if (opened % 3 == 1) {
      linger hard = {1, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    } else if (opened % 3 == 2) {
      send_all(fd, "POST /classify HT");
    }
    ::close(fd);
  }
  std::cerr << opened << " connections opened and dropped in " << seconds_since(t) << " s\n";
  EXPECT_GE(opened, 1000);
  const Reply r = post("/classify", json_text("where is my order"), "application/json");
  EXPECT_EQ(r.status, 200) << r.body;
}

TEST_F(Serve, SigtermAnswersTheRequestsInFlightThenExits0) {
  test::ServeProcess& server = start({"--threads", "4", "--max-body", "4000000"});
  std::string records;  // long enough to be in flight for a good while
  for (int i = 0; i < 600; ++i) {
    records +=
        json_text("Hello, I ordered a chocolate cake (order CR-" + std::to_string(10000 + i) +
                  ") for my daughter's birthday on Saturday. The cake came on time but "
                  "the delivery fee was charged twice. Please refund the extra fee.") +
        "\n";
  }
  std::vector<Reply> replies(3);
  std::vector<std::thread> clients;
  for (auto& reply : replies) {
    clients.emplace_back([&] { reply = post("/batch", records, "application/x-ndjson"); });
  }
  // Wait until all three are being answered (and this one: four in flight).
  bool in_flight = false;
  for (const auto t = Clock::now(); !in_flight && seconds_since(t) < 5;) {
    in_flight =
        get("/metrics").body.find("router_http_requests_in_flight 4\n") != std::string::npos;
  }
  EXPECT_TRUE(in_flight);
  ::kill(server.pid(), SIGTERM);
  for (auto& c : clients) c.join();
  for (const auto& r : replies) {
    EXPECT_EQ(r.status, 200) << r.body.substr(0, 200);
    EXPECT_EQ(test::parse_jsonl(r.body).size(), 600u);
  }
  EXPECT_EQ(server.wait(), 0) << server.log();
  EXPECT_NE(server.log().find("stopped"), std::string::npos) << server.log();
  server_.reset();
}

TEST_F(Serve, KeptAliveConnectionsAnswerInOrder) {
  start();
  const std::string two = "GET /healthz HTTP/1.1\r\n\r\n" + request("GET", "/healthz", "");
  const int fd = connect_to(server_->port());
  send_all(fd, two);
  const std::string raw = read_all(fd);
  ::close(fd);
  size_t answers = 0;
  for (size_t at = 0; (at = raw.find("HTTP/1.1 200 OK", at)) != std::string::npos; ++at) ++answers;
  EXPECT_EQ(answers, 2u) << raw;
}

// Messages as a mail flow brings them: a real .eml, CRLF with a sender's own X-Router-Label,
// mailing-list mail (a header rule), and one with no words (passed through with X-Router-Error).
std::vector<std::string> flow_messages(const TempDir& tmp) {
  const std::vector<std::string> texts = {
      slurp(test::source_path("examples/message.eml")),
      "From: Asha <asha@example.in>\r\nSubject: order CR-10231\r\nX-Router-Label: cancel_order\r\n"
      "\r\nRefund the delivery fee, not the cake.\r\n",
      "From: news@shop.example\nList-Id: <deals.shop.example>\nSubject: sale\n\nbig sale\n",
      "From: a@b.c\nSubject: \n\n \n"};
  std::vector<std::string> paths;
  for (size_t i = 0; i < texts.size(); ++i) {
    paths.push_back(tmp.path("flow" + std::to_string(i) + ".eml"));
    spit(paths.back(), texts[i]);
  }
  return paths;
}

test::CommandResult routerc(const std::string& args, const TempDir& tmp, const std::string& in) {
  return test::run_command(quote(ROUTERC_BINARY) + " " + args, tmp.dir(), in);
}

// A port on 127.0.0.1 where nothing listens: bound, then closed.
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof a;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
  ::close(fd);
  return ntohs(a.sin_port);
}

TEST_F(Serve, FilterAnswersWhatRouterFilterWrites) {
  start();
  for (const auto& path : flow_messages(tmp_)) {
    const Reply r = post("/filter", slurp(path), "message/rfc822");
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.head.find("Content-Type: message/rfc822"), std::string::npos) << r.head;
    EXPECT_EQ(r.body, run_router("filter", tmp_.dir(), path).out) << path;
    EXPECT_EQ(post("/filter?k=3", slurp(path), "message/rfc822").body,
              run_router("filter -k 3", tmp_.dir(), path).out)
        << path;
  }
  EXPECT_EQ(post("/filter?k=0", "Subject: hi\n\nhi\n", "message/rfc822").status, 400);
}

// routerc, the filter's client: the same bytes as `router filter`, by way of the service (which
// counts them), with nothing on stderr.
TEST_F(Serve, RoutercWritesWhatRouterFilterWritesByWayOfTheService) {
  start({"--no-header-rules"});
  const std::string port = std::to_string(server_->port());
  const auto paths = flow_messages(tmp_);
  for (const auto& path : paths) {
    const auto r = routerc("--port " + port + " -k 2", tmp_, path);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out, run_router("filter -k 2 --no-header-rules", tmp_.dir(), path).out) << path;
  }
  const std::string served = "router_http_requests_total{path=\"/filter\",status=\"200\"} " +
                             std::to_string(paths.size()) + "\n";
  EXPECT_NE(get("/metrics").body.find(served), std::string::npos) << served;
}

// With no service, or one that never answers, the message is filtered here by `router filter`
// (with the options routerc was given for it); without router either, it passes through with
// X-Router-Error. Exit 0 every time.
TEST(Routerc, FiltersHereWhenTheServiceDoesNotAnswer) {
  TempDir tmp("router_routerc");
  const std::string path = flow_messages(tmp)[1];
  const std::string expected = run_router("filter -k 2", tmp.dir(), path).out;
  const std::string nobody = std::to_string(closed_port());
  const auto refused = routerc("--port " + nobody + " -k 2", tmp, path);
  EXPECT_EQ(refused.code, 0) << refused.err;
  EXPECT_EQ(refused.out, expected);
  EXPECT_NE(refused.err.find("(Connection refused); filtering with router filter here"),
            std::string::npos)
      << refused.err;

  const int silent = ::socket(AF_INET, SOCK_STREAM, 0);  // takes connections, never answers
  sockaddr_in a = {};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof a;
  ASSERT_EQ(::bind(silent, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(silent, 4), 0);
  ::getsockname(silent, reinterpret_cast<sockaddr*>(&a), &size);
  const auto start = Clock::now();
  const auto late =
      routerc("--port " + std::to_string(ntohs(a.sin_port)) + " --timeout 0.3 -k 2", tmp, path);
  EXPECT_LT(seconds_since(start), 8);
  ::close(silent);
  EXPECT_EQ(late.code, 0) << late.err;
  EXPECT_EQ(late.out, expected);
  EXPECT_NE(late.err.find("timed out waiting for the answer"), std::string::npos) << late.err;

  const std::string alone = tmp.path("routerc");  // no router beside it, none on PATH
  std::filesystem::copy_file(ROUTERC_BINARY, alone);
  const auto bare = test::run_command("env PATH=/nonexistent " + quote(alone) + " --port " + nobody,
                                      tmp.dir(), path);
  EXPECT_EQ(bare.code, 0) << bare.err;
  EXPECT_EQ(bare.out, stamp_headers(slurp(path), "X-Router-",
                                    {"X-Router-Error: no answer from router serve at 127.0.0.1:" +
                                     nobody + " (Connection refused); router filter did not run"}));
}

TEST(Routerc, BadOptionsAreUsageErrorsAndHelpNamesTheService) {
  TempDir tmp("router_routerc");
  const auto bad = routerc("--port 0", tmp, "/dev/null");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("routerc --help"), std::string::npos) << bad.err;
  const auto help = routerc("--help", tmp, "/dev/null");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("router serve"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace router
