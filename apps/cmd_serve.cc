// `router serve`: the classifier as an HTTP service (docs/mail-flow.md, "Service"). POST /classify
// answers what `router classify --json` prints for the same email, POST /batch what `router batch`
// writes for the same JSON Lines, POST /filter what `router filter` writes for the same message
// (routerc's way in); GET /healthz and GET /metrics (Prometheus) for the operator.
// The model is loaded once, before listening, and shared by the workers (Model::predict is const
// and thread-safe). SIGTERM and SIGINT stop the accepting; requests in flight are answered, then
// the process exits 0. Listens on 127.0.0.1 unless told otherwise.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <optional>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "base/errors.h"
#include "base/signals.h"
#include "common.h"
#include "input/mail.h"
#include "serve_http.h"
#include "serve_metrics.h"

namespace router::app {

namespace {

using ojson = nlohmann::ordered_json;
using httplib::Request;
using httplib::Response;

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string model;
  int threads = 0;
  size_t max_body = size_t{1} << 20;
  double timeout = 5;
  double idle = 5;
  bool no_header_rules = false;
};

// The paths served, and the methods each takes.
const std::map<std::string, std::vector<std::string>> kRoutes = {{"/classify", {"POST"}},
                                                                 {"/batch", {"POST"}},
                                                                 {"/filter", {"POST"}},
                                                                 {"/healthz", {"GET", "HEAD"}},
                                                                 {"/metrics", {"GET", "HEAD"}}};

// Deeper JSON is refused before the parser builds it (the same bound as dataset files).
constexpr int kMaxDepth = 64;

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error
// while parsing object - unexpected end of input; expected '}'" as "line 1, column 9: unexpected
// end of input; expected '}'".
std::string json_problem(std::string s) {
  if (s.rfind("[json.exception.", 0) == 0 && s.find("] ") != std::string::npos) {
    s.erase(0, s.find("] ") + 2);
  }
  if (s.rfind("parse error at ", 0) == 0) s.erase(0, 15);
  const size_t colon = s.find(": "), dash = s.find(" - ");
  if (colon != std::string::npos && dash != std::string::npos && colon < dash) {
    s.erase(colon + 2, dash + 1 - colon);
  }
  if (const size_t last = s.find("; last read"); last != std::string::npos) s.resize(last);
  return s;
}

// Parses `text` into `value`; on failure returns false with `problem` saying where and what.
bool parse_json(std::string_view text, ojson& value, std::string& problem) {
  bool deep = false;
  auto guard = [&](int depth, ojson::parse_event_t, ojson&) {
    if (depth > kMaxDepth) deep = true;
    if (deep) throw std::length_error("deep");
    return true;
  };
  try {
    value = ojson::parse(text.begin(), text.end(), guard);
    return true;
  } catch (const ojson::exception& e) {  // parse_error, and out_of_range for numbers like 1e400
    problem = json_problem(e.what());
  } catch (const std::length_error&) {
    if (!deep) throw;
    problem = "nested deeper than " + std::to_string(kMaxDepth) + " levels";
  }
  return false;
}

// The media type of the request's Content-Type, lower case, without parameters.
std::string media_type(const Request& req) {
  std::string type = req.get_header_value("Content-Type");
  type = type.substr(0, type.find(';'));
  type.erase(
      std::remove_if(type.begin(), type.end(), [](unsigned char c) { return std::isspace(c); }),
      type.end());
  std::transform(type.begin(), type.end(), type.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return type;
}

bool is_json(const std::string& type) {
  return type == "application/json" ||
         (type.size() > 5 && type.compare(type.size() - 5, 5, "+json") == 0);
}

// Answers, for every path it does not serve, 404, and for a method a path does not take, 405.
bool screen(const Request& req, Response& res) {
  const auto route = kRoutes.find(req.path);
  if (route == kRoutes.end()) {
    HttpServer::fail(res, 404,
                     "no such path: " + req.path.substr(0, 200) +
                         "; the service answers POST /classify, POST /batch, POST /filter, "
                         "GET /healthz and GET /metrics");
    return true;
  }
  const auto& methods = route->second;
  if (std::find(methods.begin(), methods.end(), req.method) != methods.end()) return false;
  std::string allowed;
  for (const auto& m : methods) allowed += (allowed.empty() ? "" : ", ") + m;
  res.set_header("Allow", allowed);
  HttpServer::fail(res, 405,
                   req.method.substr(0, 20) + " " + req.path + " is not served; use " +
                       methods.front() + " " + req.path);
  return true;
}

// The handlers of POST /classify, POST /batch and POST /filter, over one loaded model.
class Service {
 public:
  Service(const Model& model, const HttpServer& server, ServeMetrics& metrics, bool header_rules)
      : model_(model), server_(server), metrics_(metrics), header_rules_(header_rules) {}

  void classify(const Request& req, Response& res, const httplib::ContentReader& reader) const;
  void batch(const Request& req, Response& res, const httplib::ContentReader& reader) const;
  void filter(const Request& req, Response& res, const httplib::ContentReader& reader) const;

 private:
  // ?k=N, or `k` when absent; false (with `res` filled) when it is not 1..10000.
  bool query_k(const Request& req, Response& res, int& k) const;
  // The prediction for one email given whole, as `router classify` makes it.
  Prediction predict_email(std::string raw, const std::string& where) const;
  // One JSON Lines record in, one out.
  std::string batch_record(std::string_view line, const std::string& where, int k) const;

  const Model& model_;
  const HttpServer& server_;
  ServeMetrics& metrics_;
  bool header_rules_;
};

bool Service::query_k(const Request& req, Response& res, int& k) const {
  if (!req.has_param("k")) return true;
  const std::string v = req.get_param_value("k");
  if (v.empty() || v.size() > 5 || v.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(v) < 1 || std::stoi(v) > 10000) {
    HttpServer::fail(res, 400,
                     "k should be a whole number from 1 to 10000, not " + v.substr(0, 20));
    return false;
  }
  k = std::stoi(v);
  return true;
}

Prediction Service::predict_email(std::string raw, const std::string& where) const {
  return label_message(model_, email_text(std::move(raw), where), header_rules_, where);
}

void Service::classify(const Request& req, Response& res,
                       const httplib::ContentReader& reader) const {
  const std::string type = media_type(req);
  const char* kHowTo = "send {\"text\": \"...\"} as application/json, or the email itself";
  if (type == "multipart/form-data") {
    return HttpServer::fail(res, 415, std::string("a form upload is not read: ") + kHowTo);
  }
  std::string body;
  int k = static_cast<int>(model_.labels().size());  // classify --json lists every label
  if (!server_.read_body(req, res, reader, body) || !query_k(req, res, k)) return;
  std::string where = "the request body";
  if (is_json(type)) {
    ojson value;
    std::string problem;
    if (!parse_json(body, value, problem)) {
      return HttpServer::fail(res, 400, "the body is not valid JSON (" + problem + "); " + kHowTo);
    }
    const auto text = value.find("text");
    const auto given_k = value.find("k");
    if (!value.is_object()) {
      return HttpServer::fail(res, 400, std::string("the body is not a JSON object: ") + kHowTo);
    }
    if (text == value.end()) {
      return HttpServer::fail(res, 400, std::string("missing \"text\": ") + kHowTo);
    }
    if (!text->is_string()) return HttpServer::fail(res, 400, "\"text\" is not a string");
    if (given_k != value.end()) {
      if (!given_k->is_number_integer() || *given_k < 1 || *given_k > 10000) {
        return HttpServer::fail(res, 400, "\"k\" should be a whole number from 1 to 10000");
      }
      k = given_k->get<int>();
    }
    body = text->get<std::string>();
    where = "\"text\"";
  } else if (body.empty()) {
    return HttpServer::fail(res, 400, std::string("the request has no body: ") + kHowTo);
  }
  try {
    const Prediction p = predict_email(std::move(body), where);
    metrics_.predicted(scored_label(model_, p));
    res.set_content(prediction_text(model_, p, k) + "\n", "application/json");
  } catch (const InputError& e) {
    HttpServer::fail(res, 400, e.what());
  }
}

std::string Service::batch_record(std::string_view line, const std::string& where, int k) const {
  ojson value;
  std::string problem;
  std::string error;
  if (!parse_json(line, value, problem)) {
    if (problem.rfind("line 1, ", 0) == 0) problem.erase(0, 8);  // one line: its column says all
    error = where + ": malformed JSON (" + problem +
            "); each line should be one JSON object such as {\"text\": \"...\"}";
  } else if (!value.is_object()) {
    error = where + ": expected a JSON object (one record per line)";
  } else if (const auto text = value.find("text"); text == value.end()) {
    error = where + ": missing \"text\"";
  } else if (!text->is_string()) {
    error = where + ": \"text\" is not a string";
  } else {
    const Email email{text->get_ref<const std::string&>(), ""};
    const Labelled l = std::move(label_emails(model_, {&email, 1}, {true, 1}).front());
    if (l.problem == Problem::kNone) {
      metrics_.predicted(scored_label(model_, l.prediction));
      return record_with_prediction(value, prediction_text(model_, l.prediction, k));
    }
    error = where + ": " + problem_text(l.problem, false);
  }
  metrics_.invalid_record();
  return record_with_error(std::move(value), error);
}

void Service::batch(const Request& req, Response& res, const httplib::ContentReader& reader) const {
  if (media_type(req) == "multipart/form-data") {
    return HttpServer::fail(res, 415, "a form upload is not read: send the JSON Lines as the body");
  }
  std::string body;
  int k = 3;  // batch's default
  if (!server_.read_body(req, res, reader, body) || !query_k(req, res, k)) return;
  std::string out;
  int64_t line = 0;
  for (size_t start = 0; start < body.size();) {
    const size_t end = std::min(body.find('\n', start), body.size());
    const std::string_view record(body.data() + start, end - start);
    start = end + 1;
    ++line;
    if (record.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    out += batch_record(record, "line " + std::to_string(line), k) + "\n";
  }
  if (out.empty()) {
    return HttpServer::fail(res, 400,
                            "the body has no records: send JSON Lines, one {\"text\": \"...\"} "
                            "per line");
  }
  res.set_content(out, "application/x-ndjson");
}

void Service::filter(const Request& req, Response& res,
                     const httplib::ContentReader& reader) const {
  std::string body;
  int k = 0;  // filter's default: no X-Router-Top-K
  if (!server_.read_body(req, res, reader, body) || !query_k(req, res, k)) return;
  const Filtered f = filter_message(
      body, [this]() -> const Model& { return model_; }, k, header_rules_);
  if (f.label >= 0) metrics_.predicted(f.label);
  if (!f.error.empty()) spdlog::debug("/filter: {}", f.error);
  res.set_content(f.message, "message/rfc822");
}

// "127.0.0.1:8080", or "[::1]:8080" for an IPv6 address.
std::string host_port(const std::string& host, int port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(port);
}

// Stops the server once SIGTERM or SIGINT has come (the handlers only set a flag), or returns
// when `done` is set.
void stop_on_signal(HttpServer& server, const std::atomic<bool>& done) {
  while (!done) {
    if (interrupted() && server.is_running()) {
      spdlog::info("stopping: answering the requests in flight");
      server.stop();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void run(const ServeOptions& o) {
  const Model model = load_model_or_default(o.model);
  check_interrupted();
  HttpLimits limits;
  limits.max_body = o.max_body;
  limits.timeout = o.timeout;
  limits.idle = o.idle;
  limits.threads = o.threads > 0
                       ? o.threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::string> paths;
  for (const auto& route : kRoutes) paths.push_back(route.first);
  ServeMetrics metrics(paths, scored_labels(model));
  HttpServer server(
      limits, [&] { metrics.started(); },
      [&](const std::string& path, int status, double seconds) {
        metrics.finished(path, status, seconds);
        spdlog::debug("{} {} {:.3f} ms", path, status, seconds * 1e3);
      },
      screen);
  const Service service(model, server, metrics, !o.no_header_rules);
  server.Post("/classify", [&](const Request& req, Response& res, const httplib::ContentReader& r) {
    service.classify(req, res, r);
  });
  server.Post("/batch", [&](const Request& req, Response& res, const httplib::ContentReader& r) {
    service.batch(req, res, r);
  });
  server.Post("/filter", [&](const Request& req, Response& res, const httplib::ContentReader& r) {
    service.filter(req, res, r);
  });
  server.Get("/healthz",
             [](const Request&, Response& res) { res.set_content("ok\n", "text/plain"); });
  server.Get("/metrics", [&](const Request&, Response& res) {
    res.set_content(metrics.text(), "text/plain; version=0.0.4");
  });
  const int port = server.bind(o.host, o.port);
  spdlog::info("listening on http://{}", host_port(o.host, port));
  spdlog::debug("{} workers, at most {} bytes a body, {} s a request", limits.threads,
                limits.max_body, limits.timeout);
  std::atomic<bool> done{false};
  std::thread watcher(stop_on_signal, std::ref(server), std::cref(done));
  try {
    server.serve();
  } catch (...) {
    done = true;
    watcher.join();
    throw;
  }
  done = true;
  watcher.join();
  spdlog::info("stopped");
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  auto* cmd = app.add_subcommand(
      "serve",
      "HTTP service: POST /classify, POST /batch, POST /filter, GET /healthz, GET /metrics");
  cmd->add_option("--host", o->host, "Address to listen on (0.0.0.0: every interface)")
      ->capture_default_str();
  cmd->add_option("--port", o->port, "Port (0: any free one; the log line names it)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  add_model_option(*cmd, o->model);
  cmd->add_option("--threads", o->threads, "Workers, each serving one connection (0: all cores)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1024));
  cmd->add_option("--max-body", o->max_body, "Largest request body in bytes (larger: 413)")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1} << 30));
  cmd->add_option("--timeout", o->timeout,
                  "Seconds for a request to arrive whole, and for its answer to be written "
                  "(later: 408)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  cmd->add_option("--idle-timeout", o->idle,
                  "Seconds a kept-alive connection may wait for its next request")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  add_header_rules_option(*cmd, o->no_header_rules);
  cmd->footer(
      "POST /classify: {\"text\": \"...\"} (and \"k\") as application/json, or the email or\n"
      "message itself as any other type; answered with the object `router classify --json`\n"
      "prints. POST /batch: JSON Lines, answered as `router batch` writes them (?k=N, default 3).\n"
      "POST /filter: a message, answered as `router filter` writes it (?k=N adds X-Router-Top-K);\n"
      "routerc sends it there.\n"
      "Errors are {\"error\": \"...\"} with 400, 404, 405, 408, 413, 415 or 431. SIGTERM or "
      "SIGINT:\n"
      "the requests in flight are answered, then exit 0. Examples: docs/mail-flow.md.");
  cmd->fallthrough();  // -v and -q after the subcommand too
  cmd->callback([o] { run(*o); });
}

}  // namespace router::app
