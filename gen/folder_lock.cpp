#include "gen/folder_lock.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dtb {

FileLock::FileLock(const std::filesystem::path& path, bool exclusive, const std::string& busy, bool remove_at_end)
    : path_(path), remove_at_end_(remove_at_end) {
    for (;;) {
        fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd_ < 0) throw std::runtime_error("cannot write to " + path.parent_path().string() + ": " + std::strerror(errno));
        if (::flock(fd_, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
            ::close(fd_);
            throw std::runtime_error(busy);
        }
        // A holder that removes its file at the end may have done so between our open and our
        // lock: then we hold a lock on a file nobody else can find, and take the new one instead.
        if (!remove_at_end_ || still_named()) return;
        ::close(fd_);
    }
}

FileLock::~FileLock() {
    if (remove_at_end_) ::unlink(path_.c_str());  // while still locked: see the constructor
    ::close(fd_);
}

bool FileLock::still_named() const {
    struct stat held {}, named {};
    return ::fstat(fd_, &held) == 0 && ::stat(path_.c_str(), &named) == 0 && held.st_dev == named.st_dev &&
           held.st_ino == named.st_ino;
}

FolderLock::FolderLock(const std::filesystem::path& dir, const std::string& task_id) {
    const std::string where = dir.string();
    if (task_id.empty()) {
        folder.emplace(dir / ".dtb-gen.lock", true, "another dtb gen or dtb upgrade is writing to " + where, false);
        return;
    }
    folder.emplace(dir / ".dtb-gen.lock", false, "a dtb gen of the whole folder or a dtb upgrade is writing to " + where,
                   false);
    task.emplace(dir / (".dtb-task-" + task_id + ".lock"), true, "task " + task_id + " is running already in " + where,
                 true);
}

}  // namespace dtb
