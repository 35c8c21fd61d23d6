#include "serve/server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>

#include <httplib.h>

#include "serve/api.hpp"
#include "serve/assets.hpp"

namespace dtb::serve {
namespace {

bool is_ipv6(const std::string& address) {
    in6_addr a6{};
    return inet_pton(AF_INET6, address.c_str(), &a6) == 1;
}

// The address to bind: numeric only (a host name would need a name lookup), or "localhost".
std::string checked_address(const std::string& address) {
    if (address == "localhost") return "127.0.0.1";
    in_addr a4{};
    if (inet_pton(AF_INET, address.c_str(), &a4) == 1 || is_ipv6(address)) return address;
    throw std::invalid_argument("--bind: \"" + address + "\" is not a numeric IPv4 or IPv6 address (nor localhost)");
}

std::string_view content_type(std::string_view path) {
    if (path.ends_with(".js")) return "text/javascript; charset=utf-8";
    if (path.ends_with(".css")) return "text/css; charset=utf-8";
    return "text/html; charset=utf-8";
}

void send_json(httplib::Response& res, const Reply& reply) {
    res.status = reply.status;
    res.set_content(json_text(reply.body), "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
    send_json(res, {status, Json{{"error", message}}});
}

// A thread serves one connection at a time and waits on it between keep-alive requests, so the
// pool is larger than the cores: 8 a core, at least 16.
int default_threads() { return static_cast<int>(std::max(16u, 8 * std::thread::hardware_concurrency())); }

}  // namespace

struct Server::Impl {
    const Tablebase& tb;
    std::string address;
    int port = 0;
    httplib::Server http;
    std::mutex state;
    bool stop_requested = false;  // under `state`
    bool running = false;         // under `state`: run() has entered listen
    std::atomic<bool> finished{false};

    Impl(const Tablebase& tablebase, const ServerOptions& o) : tb(tablebase), address(checked_address(o.bind)) {
        if (o.port < 0 || o.port > 65535) throw std::invalid_argument("--port must be from 0 to 65535");
        const int threads = o.threads > 0 ? o.threads : default_threads();
        http.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
        http.set_payload_max_length(o.max_body_bytes);
        http.set_default_headers({{"X-Content-Type-Options", "nosniff"},
                                  {"Content-Security-Policy", "default-src 'self'; img-src 'self' data:"},
                                  {"Referrer-Policy", "no-referrer"}});
        // SO_REUSEADDR only: a restart may bind while old connections linger, but unlike the library's
        // default (SO_REUSEPORT) a second server cannot share a port that is in use. TCP_NODELAY (which
        // accepted connections inherit): the library writes headers and body apart, and Nagle's
        // algorithm against the client's delayed ACK held every keep-alive answer back 40 ms.
        http.set_socket_options([](int sock) {
            const int yes = 1;
            setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
            setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
        });
        route();
        errno = 0;
        port = o.port == 0 ? http.bind_to_any_port(address) : (http.bind_to_port(address, o.port) ? o.port : -1);
        if (port < 0) {
            const int error = errno;
            throw ListenError("cannot listen on " + url_of(o.port) + ": " +
                              (error ? std::strerror(error) : "the address cannot be bound"));
        }
    }

    std::string url_of(int p) const {
        const std::string host = is_ipv6(address) ? "[" + address + "]" : address;
        return "http://" + host + ":" + std::to_string(p) + "/";
    }

    void route() {
        http.Get("/api/probe", [this](const httplib::Request& req, httplib::Response& res) {
            with_fen(req, res, [this](std::string_view fen) { return probe_reply(tb, fen); });
        });
        http.Get("/api/line", [this](const httplib::Request& req, httplib::Response& res) {
            with_fen(req, res, [this](std::string_view fen) { return line_reply(tb, fen); });
        });
        http.Get("/api/health", [this](const httplib::Request&, httplib::Response& res) { send_json(res, health_reply(tb)); });
        // Only the page's own files, by exact path: nothing here maps a path to the file system.
        http.Get(R"(/|/[a-z]+\.(html|js|css))", [](const httplib::Request& req, httplib::Response& res) {
            const std::string path = req.path == "/" ? "/index.html" : req.path;
            for (const Asset& a : web_assets())
                if (a.path == path) {
                    res.set_content(std::string(a.content), std::string(content_type(path)).c_str());
                    return;
                }
            send_error(res, 404, "not found: " + req.path);
        });
        http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
            if (!res.body.empty()) return;  // a handler's own answer (a 400 with its reason)
            const std::string reason = res.status == 404   ? "not found: " + req.path
                                       : res.status == 413 ? "request body too large"
                                       : res.status == 414 ? "request line too long"
                                                           : "HTTP status " + std::to_string(res.status);
            send_error(res, res.status, reason);
        });
        http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr e) {
            std::string what = "internal error";
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& x) {
                what += std::string(": ") + x.what();
            } catch (...) {
            }
            send_error(res, 500, what);
        });
    }

    template <typename Answer>
    void with_fen(const httplib::Request& req, httplib::Response& res, Answer&& answer) {
        if (!req.has_param("fen")) return send_error(res, 400, "missing parameter fen (e.g. ?fen=W:W33:B2)");
        send_json(res, answer(req.get_param_value("fen")));
    }
};

Server::Server(const Tablebase& tb, const ServerOptions& options) : impl_(std::make_unique<Impl>(tb, options)) {}
Server::~Server() = default;

int Server::port() const { return impl_->port; }
std::string Server::url() const { return impl_->url_of(impl_->port); }

bool Server::run() {
    {
        const std::lock_guard lock(impl_->state);
        if (impl_->stop_requested) return true;
        impl_->running = true;
    }
    const bool ok = impl_->http.listen_after_bind();
    impl_->finished = true;
    const std::lock_guard lock(impl_->state);
    return ok || impl_->stop_requested;
}

void Server::stop() {
    {
        const std::lock_guard lock(impl_->state);
        impl_->stop_requested = true;
        if (!impl_->running) return;  // run() will not start listening
    }
    // run() is about to listen or listening: wait until it is, so that the stop is not lost.
    while (!impl_->http.is_running() && !impl_->finished) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    impl_->http.stop();
}

}  // namespace dtb::serve
