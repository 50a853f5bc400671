/* See CSpawn.h. Everything between fork and execve is async-signal-safe: system calls only. */
#define _GNU_SOURCE
#include "CSpawn.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEYCTL_JOIN_SESSION_KEYRING 1
#define CLOSE_RANGE_CLOEXEC_FLAG (1U << 2)
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* One architecture's three keyring calls denied, the rest allowed: 8 instructions, entered with
   the architecture in the accumulator and left (not taken) with it still there. `mask` clears
   x86-64's x32 bit, so an x32 keyctl is the same number. */
#define ARCH_BLOCK(arch, mask, add_key, request_key, keyctl)                                 \
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (arch), 0, 7),                                       \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),               \
        BPF_STMT(BPF_ALU | BPF_AND | BPF_K, (mask)),                                         \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (add_key), 3, 0),                                \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (request_key), 2, 0),                            \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (keyctl), 1, 0),                                 \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                                        \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

/* Installs `program`. SECCOMP_FILTER_FLAG_SPEC_ALLOW: the filter is not a sandbox against side
   channels, and without the flag a kernel with the default spec_store_bypass_disable=seccomp would
   turn off speculative store bypass for the command, slowing every CPU-bound build step under
   exec. Kernels before 4.17 do not know the flag (EINVAL): installed without it there. */
static int install_filter(const struct sock_fprog *program) {
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW, program) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, program, 0, 0);
}

/* The keyring calls of this machine's architecture and of the 32-bit one it also runs; a call
   from any other architecture fails with ENOSYS (its numbers are unknown here). */
static int deny_keyring_calls(void) {
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
#if defined(__x86_64__)
        ARCH_BLOCK(AUDIT_ARCH_X86_64, ~0x40000000U, SYS_add_key, SYS_request_key, SYS_keyctl),
        ARCH_BLOCK(AUDIT_ARCH_I386, ~0U, 286, 287, 288),
#elif defined(__aarch64__)
        ARCH_BLOCK(AUDIT_ARCH_AARCH64, ~0U, SYS_add_key, SYS_request_key, SYS_keyctl),
        ARCH_BLOCK(AUDIT_ARCH_ARM, ~0U, 309, 310, 311),
#else
#error "keyring seccomp filter: add this architecture's numbers"
#endif
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
    };
    struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
    /* With CAP_SYS_ADMIN (root) the filter needs no no_new_privs, so sudo and other set-user-ID
       programs keep working under it; without, the kernel requires no_new_privs. */
    if (install_filter(&program) == 0) return 0;
    if (errno != EACCES) return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return install_filter(&program);
}

/* Marks descriptors first..last close-on-exec. */
static int cloexec_range(unsigned first, unsigned last) {
    if (first > last) return 0;
    if (syscall(SYS_close_range, first, last, CLOSE_RANGE_CLOEXEC_FLAG) == 0) return 0;
    if (errno != ENOSYS && errno != EINVAL) return -1;
    /* Kernels before 5.11: one fcntl per possible descriptor, up to the soft limit. */
    struct rlimit limit;
    rlim_t end = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY ? limit.rlim_cur : 65536;
    if (end > 1048576) end = 1048576;
    for (rlim_t fd = first; fd <= last && fd < end; fd++) {
        int flags = fcntl((int)fd, F_GETFD);
        if (flags >= 0) fcntl((int)fd, F_SETFD, flags | FD_CLOEXEC);
    }
    return 0;
}

/* Every descriptor of 3 and up close-on-exec except the kept ones, which are made inheritable. */
static int close_all_but(const int *keep, size_t count) {
    unsigned next = 3;
    /* Ascending order without sorting: each round takes the smallest kept descriptor >= next. */
    for (;;) {
        long smallest = -1;
        for (size_t i = 0; i < count; i++) {
            if (keep[i] >= (int)next && (smallest < 0 || keep[i] < smallest)) smallest = keep[i];
        }
        if (smallest < 0) break;
        if (cloexec_range(next, (unsigned)smallest - 1) != 0) return -1;
        int flags = fcntl((int)smallest, F_GETFD);
        if (flags < 0 || fcntl((int)smallest, F_SETFD, flags & ~FD_CLOEXEC) != 0) return -1;
        next = (unsigned)smallest + 1;
    }
    return cloexec_range(next, ~0U);
}

int cspawn_prepare(const struct cspawn_options *options) {
    for (size_t i = 0; i < options->dup_count; i++) {
        if (dup2(options->dup_from[i], options->dup_to[i]) < 0) return -1;
    }
    if (options->null_stdin) {
        int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (null < 0) return -1;
        if (null != 0) {
            if (dup2(null, 0) < 0) return -1;
            close(null);
        } else if (fcntl(0, F_SETFD, 0) != 0) {
            return -1;
        }
    }
    if (options->defaults) {
        struct sigaction fallback = {.sa_handler = SIG_DFL};
        for (int number = 1; number < NSIG; number++) {
            if (sigismember(options->defaults, number) == 1) sigaction(number, &fallback, NULL);
        }
    }
    if (options->mask && sigprocmask(SIG_SETMASK, options->mask, NULL) != 0) return -1;
    if (options->new_session_keyring && syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) {
        /* A kernel or container without keys has nothing to reach back to either. */
        if (errno != ENOSYS && errno != EPERM && errno != EOPNOTSUPP) return -1;
    }
    if (close_all_but(options->keep, options->keep_count) != 0) return -1;
    if (options->deny_keyring && deny_keyring_calls() != 0) return -1;
    return 0;
}

pid_t cspawn_start(const char *path, char *const argv[], char *const envp[], const struct cspawn_options *options) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    pid_t child = fork();
    if (child < 0) {
        int saved = errno;
        close(report[0]);
        close(report[1]);
        errno = saved;
        return -1;
    }
    if (child == 0) {
        close(report[0]);
        /* The report pipe lives until execve; kept clear of the descriptors the dups write. */
        int out = report[1] >= 3 ? report[1] : fcntl(report[1], F_DUPFD_CLOEXEC, 3);
        if (cspawn_prepare(options) == 0) execve(path, argv, envp);
        int error = errno;
        while (write(out, &error, sizeof error) < 0 && errno == EINTR) {}
        _exit(127);
    }
    close(report[1]);
    int error = 0;
    ssize_t got;
    while ((got = read(report[0], &error, sizeof error)) < 0 && errno == EINTR) {}
    close(report[0]);
    if (got == (ssize_t)sizeof error) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        errno = error;
        return -1;
    }
    return child;
}

int cspawn_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
