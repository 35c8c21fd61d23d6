// Locks that keep two writers out of one database folder (dtb gen, its workflow tasks, dtb upgrade).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace dtb {

// An flock on a file, taken without waiting: throws std::runtime_error(`busy`) when another
// process holds it. A lock removed at the end (remove_at_end) is unlinked while still held.
class FileLock {
public:
    FileLock(const std::filesystem::path& path, bool exclusive, const std::string& busy, bool remove_at_end);
    ~FileLock();
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    bool still_named() const;

    std::filesystem::path path_;
    bool remove_at_end_;
    int fd_ = -1;
};

// A lock on DIR/.dtb-gen.lock: exclusive for a build of the whole folder (or anything else that
// rewrites its files), so that two such writers never share a folder; shared for the tasks of a
// workflow plan, which also take an exclusive lock of their own (DIR/.dtb-task-ID.lock), so that
// tasks run side by side but never one task twice, nor a task beside a whole-folder build. A task's
// lock file is removed when it ends (a plan has thousands of tasks); the folder's stays.
struct FolderLock {
    std::optional<FileLock> folder, task;

    // `task_id` empty: the whole folder, exclusively; else a shared lock and the task's own.
    FolderLock(const std::filesystem::path& dir, const std::string& task_id);
};

}  // namespace dtb
