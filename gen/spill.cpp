#include "gen/spill.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include <xxhash.h>

#include "gen/chunked_file.hpp"

namespace dtb {

namespace fs = std::filesystem;

SpillFolder::SpillFolder(fs::path dir) : dir_(std::move(dir)) {
    fs::create_directories(dir_);
    std::vector<fs::path> unusable;
    for (const auto& entry : fs::directory_iterator(dir_)) {
        const auto info = entry.is_regular_file() ? read_chunked_info(entry.path()) : std::nullopt;
        if (info && info->part_bytes.size() == 1)
            saved_[entry.path().filename().string()] = {info->part_bytes[0], info->tag};
        else
            unusable.push_back(entry.path());
    }
    for (const fs::path& p : unusable) fs::remove_all(p);
}

void SpillFolder::forget(const std::string& name) {
    saved_.erase(name);
    std::error_code ignored;
    fs::remove(dir_ / name, ignored);
}

void SpillFolder::remove_all() {
    saved_.clear();
    fs::remove_all(dir_);
}

void SpillFolder::save(const std::string& name, std::span<const std::uint8_t> bytes, std::uint64_t tag) {
    forget(name);
    const std::span<const std::uint8_t> parts[] = {bytes};
    write_chunked_file(dir_ / name, parts, tag);
    saved_[name] = {bytes.size(), tag};
}

void SpillFolder::load(const std::string& name, std::span<std::uint8_t> out, std::uint64_t tag) const {
    const auto saved = saved_.find(name);
    if (saved == saved_.end() || saved->second.bytes != out.size() || saved->second.tag != tag)
        throw std::logic_error("dtb gen: no scratch copy of " + name + " of " + std::to_string(out.size()) + " bytes");
    // Checked again as it is read: the file may have changed since the folder adopted it.
    const std::span<std::uint8_t> parts[] = {out};
    read_chunked_file(dir_ / name, parts, tag);
}

std::uint64_t SpillFolder::bytes_on_disk() const {
    std::uint64_t total = 0;
    for (const auto& entry : saved_) total += fs::file_size(dir_ / entry.first);
    return total;
}

std::uint64_t content_tag(const fs::path& file) {
    using FilePtr = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;
    const FilePtr in(std::fopen(file.c_str(), "rb"), &std::fclose);
    if (!in) throw std::runtime_error("cannot open " + file.string() + ": " + std::strerror(errno));
    const std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> state(XXH3_createState(), XXH3_freeState);
    if (!state || XXH3_64bits_reset(state.get()) != XXH_OK) throw std::bad_alloc();
    std::vector<char> buffer(std::size_t{1} << 20);
    while (const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), in.get()))
        XXH3_64bits_update(state.get(), buffer.data(), n);
    if (std::ferror(in.get())) throw std::runtime_error("cannot read " + file.string() + ": " + std::strerror(errno));
    return XXH3_64bits_digest(state.get());
}

}  // namespace dtb
