#include <sys/syscall.h>
#include <unistd.h>

/* syncfs(2), which glibc declares only under _GNU_SOURCE: flushes the whole file system holding
   `fd` in one call (the cloud store's new records, written together). 0, or -1 with errno set. */
static inline int cfilesync_syncfs(int fd) { return (int)syscall(SYS_syncfs, fd); }
