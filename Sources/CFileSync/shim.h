#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* syncfs(2), which glibc declares only under _GNU_SOURCE: flushes the whole file system holding
   `fd` in one call (the cloud store's new records, written together). 0, or -1 with errno set. */
static inline int cfilesync_syncfs(int fd) { return (int)syscall(SYS_syncfs, fd); }

/* A new regular file with no name in `folder` (O_TMPFILE, mode 0600): a process killed while
   writing it leaves nothing, the kernel frees it. -1 with errno set; EOPNOTSUPP or EISDIR where
   the file system (or the kernel) cannot make one. */
static inline int cfilesync_open_unnamed(const char *folder) {
    return open(folder, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
}

/* Gives the unnamed file `fd` the name `path`, never replacing a file there (EEXIST). Through
   /proc/self/fd, as open(2) describes; where /proc is not mounted, by AT_EMPTY_PATH (which needs
   CAP_DAC_READ_SEARCH). 0, or -1 with errno set. */
static inline int cfilesync_link_unnamed(int fd, const char *path) {
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    if (linkat(AT_FDCWD, self, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0) return 0;
    if (errno != ENOENT || access("/proc/self/fd", F_OK) == 0) return -1;
    return linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH);
}
