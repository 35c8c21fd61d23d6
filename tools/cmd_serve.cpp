// `dtb serve`: the HTTP server of serve/ on a database folder, until SIGINT or SIGTERM.
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>

#include <pthread.h>

#include "probe/tablebase.hpp"
#include "serve/server.hpp"
#include "tools/commands.hpp"

namespace dtb::cli {
namespace {

struct ServeOptions {
    std::string db;
    serve::ServerOptions server;
    std::size_t cache_mb = 256;
    bool resident = false;
};

// SIGINT and SIGTERM, blocked in every thread started after this (the server's pool included) and
// taken by sigwait in one thread of our own, which stops the server: a clean shutdown, not a kill.
sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

int run_serve(const ServeOptions& o) {
    const sigset_t signals = stop_signals();
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    const Tablebase tb(o.db, {.cache_mb = o.cache_mb, .resident = o.resident});
    require_databases(tb);
    if (o.resident) {
        std::cout << "dtb serve: loading every .wdl file into memory..." << std::endl;
        const std::size_t ready = tb.preload();
        std::cout << "dtb serve: " << ready << " of " << tb.materials().size() << " .wdl files resident, "
                  << (tb.resident_bytes() + (1 << 20) - 1) / (1 << 20) << " MiB" << std::endl;
    }
    serve::Server server(tb, o.server);
    std::cout << "dtb serve: listening on " << server.url() << " (" << tb.materials().size() << " databases of up to "
              << tb.max_pieces() << " pieces, distances to win up to " << tb.max_dtw_pieces() << ")" << std::endl;
    std::thread waiter([&server, signals] {
        int signal = 0;
        sigwait(&signals, &signal);
        server.stop();
    });
    const bool served = server.run();
    if (!served) kill(getpid(), SIGTERM);  // wakes the waiter (the signal is blocked, so only it takes it)
    waiter.join();
    std::cout << "dtb serve: stopped" << std::endl;
    return served ? kExitOk : kExitFailure;
}

}  // namespace

void add_serve_commands(CLI::App& app, Runner& run) {
    auto o = std::make_shared<ServeOptions>();
    auto* cmd = app.add_subcommand(
        "serve",
        "Serve the databases over HTTP: an explorer page at / and a JSON API (/api/probe?fen=FEN,\n"
        "/api/line?fen=FEN, /api/health). Prints the address it listens on, then serves until\n"
        "SIGINT or SIGTERM (exit 0). Exit codes: 2 bad option or address, 3 no databases in --db or\n"
        "the port cannot be bound (in use, not allowed).");
    cmd->add_option("--db", o->db, "Database folder")->required();
    cmd->add_option("--bind", o->server.bind, "Address to listen on (numeric IPv4 or IPv6, or localhost)")
        ->capture_default_str();
    cmd->add_option("--port", o->server.port, "TCP port; 0: any free port (the one chosen is printed)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    cmd->add_option("--threads", o->server.threads, "Threads answering requests, each one connection at a time (default: 8 a core, at least 16)")
        ->check(CLI::Range(1, 1024));
    add_cache_mb_option(cmd, o->cache_mb, "Block cache size in MiB, shared by all requests")->capture_default_str();
    cmd->add_flag("--resident", o->resident,
                  "Load every .wdl file into memory at start (about 1.4 times their size on disk or less; docs/PROBING.md): "
                  "WDL answers then never read the disk, and the cache serves the .dtw files only");
    cmd->callback([&run, o] { run = [o] { return run_serve(*o); }; });
}

}  // namespace dtb::cli
