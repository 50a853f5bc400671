/* See view.h. Everything here runs between fork and execve: system calls only, no allocation. */
#define _GNU_SOURCE
#include "view.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define VIEW_ATTR_RDONLY 0x00000001ULL
#define VIEW_ST_RELATIME 4096

/* struct mount_attr (Linux 5.12), which older headers lack. */
struct view_mount_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};

static int write_file(const char *path, const char *text, size_t length) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t wrote;
    while ((wrote = write(fd, text, length)) < 0 && errno == EINTR) {}
    int saved = errno;
    close(fd);
    errno = saved;
    return wrote == (ssize_t)length ? 0 : -1;
}

/* Maps `id` inside the new user namespace to the same `id` outside: the program's files stay its
   own and `id` prints what it printed before. */
static int write_id_map(const char *path, unsigned long id) {
    char digits[24];
    size_t count = 0;
    do {
        digits[count++] = (char)('0' + id % 10);
        id /= 10;
    } while (id > 0);
    char line[64];
    size_t length = 0;
    for (int copy = 0; copy < 2; copy++) {
        for (size_t i = count; i > 0; i--) line[length++] = digits[i - 1];
        line[length++] = ' ';
    }
    line[length++] = '1';
    line[length++] = '\n';
    return write_file(path, line, length);
}

/* 0 in namespaces of its own; 1 when the system refused them (`*refused` its errno, nothing
   changed); -1 with errno when a namespace was made but could not be set up. */
static int enter_namespaces(int *refused) {
    uid_t uid = geteuid();
    gid_t gid = getegid();
    /* A cgroup namespace too, rooted at the program's cgroup: it cannot move itself above it. */
    int flags = uid == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS;
    if (unshare(flags | CLONE_NEWCGROUP) != 0 && (errno != EINVAL || unshare(flags) != 0)) {
        *refused = errno;
        return 1;
    }
    if (uid != 0) {
        if (write_id_map("/proc/self/uid_map", uid) != 0) return -1;
        if (write_file("/proc/self/setgroups", "deny", 4) != 0 && errno != ENOENT) return -1;
        if (write_id_map("/proc/self/gid_map", gid) != 0) return -1;
    }
    /* What is mounted outside still shows; nothing mounted here leaves. Refused (EPERM) inside the
       command of an outer exec as root, whose filter denies mounts: that command's view is this one's. */
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == 0) return 0;
    if (errno != EPERM) return -1;
    *refused = EPERM;
    return 1;
}

/* Sets (or clears) read-only on the mount at `path`, and those beneath it with `recursive`. Other
   flags are kept: a user namespace may not clear nosuid, nodev, noexec or atime flags it was given. */
static int set_read_only(const char *path, int read_only, int recursive) {
    struct view_mount_attr attr = {0};
    if (read_only) {
        attr.attr_set = VIEW_ATTR_RDONLY;
    } else {
        attr.attr_clr = VIEW_ATTR_RDONLY;
    }
    if (syscall(SYS_mount_setattr, AT_FDCWD, path, recursive ? AT_RECURSIVE : 0, &attr, sizeof attr) == 0) return 0;
    if (errno != ENOSYS || recursive) return -1;
    /* Before 5.12: a remount that repeats the flags the mount has. */
    struct statfs fs;
    if (syscall(SYS_statfs, path, &fs) != 0) return -1;
    unsigned long flags = (unsigned long)fs.f_flags & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME);
    if (fs.f_flags & VIEW_ST_RELATIME) flags |= MS_RELATIME;
    return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | (read_only ? MS_RDONLY : 0) | flags, NULL);
}

/* Covers `path` with /dev/null, read-only: reading it gives nothing, connecting to it is refused,
   and /dev/null cannot be changed through it. */
static int cover(const char *path) {
    if (mount("/dev/null", path, NULL, MS_BIND, NULL) != 0) return -1;
    return set_read_only(path, 1, 0);
}

static int allowed(const struct stat *status, const struct cspawn_options *options) {
    for (size_t i = 0; i < options->sockets_allowed_count; i++) {
        if (options->sockets_allowed[i].device == status->st_dev && options->sockets_allowed[i].inode == status->st_ino) return 1;
    }
    return 0;
}

/* Covers the socket at `path` unless it is allowed or this user could not connect to it anyway:
   1 when covered, 0 when not, -1 with errno when covering failed. */
static int cover_socket(const char *path, const struct cspawn_options *options) {
    struct stat status;
    if (stat(path, &status) != 0 || !S_ISSOCK(status.st_mode) || allowed(&status, options)) return 0;
    if (access(path, W_OK) != 0) return 0;
    if (cover(path) == 0) return 1;
    return errno == ENOENT ? 0 : -1;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* One line of /proc/net/unix: "Num: RefCount Protocol Flags Type St Inode [Path]". A listening
   socket (flag __SO_ACCEPTCON) or a datagram one, bound to an absolute path, is a service. */
static int consider(char *line, const struct cspawn_options *options) {
    char *field[8];
    int count = 0;
    char *next = line;
    while (count < 7) {
        while (*next == ' ') next++;
        if (*next == 0) return 0;
        field[count++] = next;
        while (*next != ' ' && *next != 0) next++;
        if (*next == 0) return 0;
    }
    /* The path is the rest of the line after one space: it may hold spaces itself. */
    char *path = next + 1;
    if (*path != '/') return 0;
    unsigned long flags = 0;
    for (char *c = field[3]; *c != ' '; c++) {
        int digit = hex_digit(*c);
        if (digit < 0) return 0;
        flags = flags * 16 + (unsigned long)digit;
    }
    int datagram = field[4][0] == '0' && field[4][1] == '0' && field[4][2] == '0' && field[4][3] == '2';
    if (!(flags & 0x10000UL) && !datagram) return 0;
    return cover_socket(path, options);
}

/* Covers every service socket /proc/net/unix lists: how many, or -1 with errno. */
static int cover_sockets(const struct cspawn_options *options) {
    int fd = open("/proc/net/unix", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char chunk[4096];
    char line[512];
    size_t length = 0;
    int overlong = 0, header = 1, covered = 0;
    for (;;) {
        ssize_t got = read(fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        for (ssize_t i = 0; i < got; i++) {
            if (chunk[i] != '\n') {
                if (length < sizeof line - 1) {
                    line[length++] = chunk[i];
                } else {
                    overlong = 1;
                }
                continue;
            }
            line[length] = 0;
            if (!header && !overlong) {
                int result = consider(line, options);
                if (result < 0) {
                    int saved = errno;
                    close(fd);
                    errno = saved;
                    return -1;
                }
                covered += result;
            }
            header = 0;
            overlong = 0;
            length = 0;
        }
    }
    close(fd);
    return covered;
}

/* Every mount read-only but the `writable` folders (each bound onto itself first, so that it is a
   mount of its own): chmod, chown, utime and setxattr fail outside them as writes do. */
static int confine_changes(const char *const *writable, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (mount(writable[i], writable[i], NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
    }
    if (set_read_only("/", 1, 1) != 0) return -1;
    for (size_t i = 0; i < count; i++) {
        if (set_read_only(writable[i], 0, 0) != 0) return -1;
    }
    return 0;
}

int cspawn_enter_view(const struct cspawn_options *options, struct cspawn_view *view) {
    view->own = 0;
    view->refused = 0;
    view->sockets_covered = 0;
    int entered = enter_namespaces(&view->refused);
    if (entered != 0) return entered < 0 ? -1 : 0;
    view->own = 1;
    for (size_t i = 0; i < options->hide_count; i++) {
        if (cover(options->hide[i]) != 0 && errno != ENOENT) return -1;
    }
    int covered = cover_sockets(options);
    if (covered < 0) return -1;
    view->sockets_covered = covered;
    if (options->writable_count > 0 && confine_changes(options->writable, options->writable_count) != 0) return -1;
    return 0;
}
