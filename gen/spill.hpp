// Scratch copies of finished tables that the builder drops from memory to stay within its memory
// budget and takes back when a later material needs them. The copy holds the in-memory bytes as
// they were (capture positions resolved, wins' distances derived): taking a table back costs one
// decompression, where reading its database file again would search every capture position and,
// for a losses-only DTW file, need the distances of every material it reaches in memory at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>

namespace dtb {

class SpillFolder {
public:
    // Uses `dir`, removing what a killed build left there; removes it again when destroyed.
    explicit SpillFolder(std::filesystem::path dir);
    ~SpillFolder();
    SpillFolder(const SpillFolder&) = delete;
    SpillFolder& operator=(const SpillFolder&) = delete;

    bool contains(const std::string& name) const { return saved_.count(name) != 0; }

    // Stores `bytes` under `name` (a file name), compressed with zstd at a fast level, each chunk
    // with its checksum. Throws std::runtime_error naming the file if it cannot be written (a full
    // disk, say); nothing is then stored under `name`.
    void save(const std::string& name, std::span<const std::uint8_t> bytes);

    // Fills `out`, which must have the size saved, with the bytes saved under `name`. Throws
    // std::runtime_error if nothing of that size was saved or the file is damaged.
    void load(const std::string& name, std::span<std::uint8_t> out) const;

    // Size on disk of everything saved so far.
    std::uint64_t bytes_on_disk() const;

private:
    std::filesystem::path dir_;
    std::map<std::string, std::uint64_t> saved_;  // name -> size in memory
};

}  // namespace dtb
