// The HTTP/1.1 server of `dtb serve`: the JSON API (serve/api.hpp) and the explorer page, many
// clients at once on a pool of threads over one shared Tablebase (whose probes are thread-safe).
//
//   GET /                    the explorer page (also /?fen=FEN), /explorer.js, /explorer.css
//   GET /api/probe?fen=FEN   value, distance and every move of a position
//   GET /api/line?fen=FEN    an optimal line to the end of the game
//   GET /api/health          liveness and what the databases cover
//
// Nothing else is served: no path reaches the file system. Bodies over max_body_bytes are refused
// (413), request lines over 8 KiB too (414).
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include "probe/tablebase.hpp"

namespace dtb::serve {

struct ServerOptions {
    std::string bind = "127.0.0.1";  // a numeric IPv4 or IPv6 address, or "localhost"
    int port = 8080;                 // 0: any free port (see Server::port)
    int threads = 0;                 // request threads, one per open connection; 0: 8 a core, at least 16
    std::size_t max_body_bytes = 4096;
};

// The server could not listen (port in use, address not on this machine, no permission).
class ListenError : public std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Server {
public:
    // Binds the address at once. Throws std::invalid_argument for an address that is not numeric
    // (nor "localhost") or a port outside 0-65535, ListenError when the port cannot be bound.
    Server(const Tablebase& tb, const ServerOptions& options);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    int port() const;         // the bound port (the one chosen when options.port was 0)
    std::string url() const;  // http://ADDRESS:PORT/
    // Serves requests until stop() is called (from any thread). Returns false if serving failed.
    bool run();
    void stop();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace dtb::serve
