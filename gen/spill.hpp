// Copies of finished tables as the builder holds them in memory (capture positions resolved, wins'
// distances derived), in DIR/.dtb-spill. They serve twice: the builder drops tables from memory to
// stay within its budget and takes them back from here, and a build resumed after a kill takes
// back what the killed one saved instead of reading the database files again, which would search
// every capture position and, for a losses-only DTW file, need the distances of every material it
// reaches. Each copy carries a tag, the content hash of the finished file it was made from: a copy
// is only taken back under the same tag, so a file rebuilt or replaced since never gets a stale copy.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>

namespace dtb {

class SpillFolder {
public:
    // Uses `dir` (created if needed), keeping the complete copies a killed build left there and
    // removing anything else.
    explicit SpillFolder(std::filesystem::path dir);
    // The copies stay: a build that stops on an error resumes from them. remove_all() ends them.
    ~SpillFolder() = default;
    SpillFolder(const SpillFolder&) = delete;
    SpillFolder& operator=(const SpillFolder&) = delete;

    // Whether a copy of `name` saved under `tag` is here.
    bool contains(const std::string& name, std::uint64_t tag) const {
        const auto it = saved_.find(name);
        return it != saved_.end() && it->second.tag == tag;
    }

    // Stores `bytes` under `name` (a file name) and `tag`, compressed with zstd at a fast level,
    // each chunk with its checksum; written under a temporary name and renamed, so a killed build
    // never leaves a partial copy under `name`. Throws std::runtime_error naming the file if it
    // cannot be written (a full disk, say); nothing is then stored under `name`.
    void save(const std::string& name, std::span<const std::uint8_t> bytes, std::uint64_t tag);

    // Fills `out`, which must have the size saved, with the bytes saved under `name` and `tag`.
    // Throws std::logic_error if no such copy was saved, std::runtime_error if the file is damaged.
    void load(const std::string& name, std::span<std::uint8_t> out, std::uint64_t tag) const;

    // Removes the copy of `name`, if any.
    void forget(const std::string& name);

    // Removes every copy and the folder (the build it served has finished).
    void remove_all();

    // Size on disk of every copy.
    std::uint64_t bytes_on_disk() const;

private:
    struct Saved {
        std::uint64_t bytes = 0;  // size in memory
        std::uint64_t tag = 0;
    };
    std::filesystem::path dir_;
    std::map<std::string, Saved> saved_;
};

// The tag of a finished database file: a 64-bit hash of its whole content. Throws
// std::runtime_error if the file cannot be read.
std::uint64_t content_tag(const std::filesystem::path& file);

}  // namespace dtb
