/* See CSpawn.h. Everything between fork and execve is async-signal-safe: system calls only. */
#define _GNU_SOURCE
#include "CSpawn.h"
#include "view.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define KEYCTL_JOIN_SESSION_KEYRING 1
#define CLOSE_RANGE_CLOEXEC_FLAG (1U << 2)
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* One architecture's system call numbers: the calls that act on another process's memory or
   descriptors (ptrace, process_vm_readv/writev, pidfd_getfd), always denied, the kernel keyring's,
   denied unless allowed, and ioctl, whose terminal requests that type into the terminal's input
   (TIOCSTI) or paste into a virtual console (TIOCLINUX) are denied. `mask` clears x86-64's x32
   bit, so an x32 call is looked up by its number without it (x32's own ptrace, process_vm and
   ioctl numbers, 521, 539, 540 and 514, are listed). */
struct arch_calls {
    uint32_t arch;
    uint32_t mask;
    int process[8];
    int keyring[3];
    int ioctl[2];
    /* mount, umount2 (and umount), pivot_root, setns, open_tree, move_mount, fsopen, fsconfig,
       fsmount, fspick, mount_setattr, open_tree_attr: denied to a root program given a view of
       its own, which they could undo. */
    int mounts[13];
};

static const struct arch_calls arch_calls[] = {
#if defined(__x86_64__)
    {AUDIT_ARCH_X86_64, ~0x40000000U, {101, 310, 311, 438, 521, 539, 540, -1}, {248, 249, 250}, {16, 514},
     {165, 166, 155, 308, 428, 429, 430, 431, 432, 433, 442, 467, -1}},
    {AUDIT_ARCH_I386, ~0U, {26, 347, 348, 438, -1}, {286, 287, 288}, {54, -1},
     {21, 22, 52, 217, 346, 428, 429, 430, 431, 432, 433, 442, 467}},
#elif defined(__aarch64__)
    {AUDIT_ARCH_AARCH64, ~0U, {117, 270, 271, 438, -1}, {217, 218, 219}, {29, -1},
     {40, 39, 41, 268, 428, 429, 430, 431, 432, 433, 442, 467, -1}},
    {AUDIT_ARCH_ARM, ~0U, {26, 376, 377, 438, -1}, {309, 310, 311}, {54, -1},
     {21, 52, 218, 375, 428, 429, 430, 431, 432, 433, 442, 467, -1}},
#else
#error "exec's seccomp filter: add this architecture's numbers"
#endif
};

#define FILTER_MAX 128

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

/* With CAP_SYS_ADMIN (root) neither a seccomp filter nor a Landlock domain needs no_new_privs, so
   sudo and other set-user-ID programs keep working under them; without, the kernel requires it
   (EACCES from seccomp, EPERM from Landlock) and it is set then. */
static int with_no_new_privs_if_needed(int (*call)(const void *), const void *argument, int needed_errno) {
    if (call(argument) == 0) return 0;
    if (errno != needed_errno || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return call(argument);
}

static int install_program(const void *program) { return install_filter(program); }

/* The terminal requests no command may make: TIOCSTI pushes bytes into a terminal's input, which
   the shell that started keychainctl reads as typed once the command ends; TIOCLINUX pastes a
   virtual console's selection into its input the same way. The kernel reads the request as 32
   bits, so only the argument's low half is compared (as bubblewrap does since CVE-2017-5226). */
static const uint32_t denied_requests[] = {0x5412 /* TIOCSTI */, 0x541C /* TIOCLINUX */};
#define DENIED_REQUEST_COUNT (sizeof denied_requests / sizeof denied_requests[0])

/* The filter: on this machine's architecture and the 32-bit one it also runs, the process calls
   (and the keyring calls when `deny_keyring`), and ioctl with a denied terminal request, fail with
   EPERM, as a container's default profile fails them; a call from any other architecture fails
   with ENOSYS (its numbers are unknown here). With `deny_mounts`, the mount calls fail so too.
   Built on the stack: nothing here may allocate. */
static int deny_calls(int deny_keyring, int deny_mounts) {
    struct sock_filter filter[FILTER_MAX];
    unsigned count = 0;
    /* Each JEQ that denies jumps to the last instruction, the denial; its offset is set below. */
    unsigned denials[FILTER_MAX];
    unsigned denial_count = 0;
    filter[count++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    for (size_t a = 0; a < sizeof arch_calls / sizeof arch_calls[0]; a++) {
        const struct arch_calls *calls = &arch_calls[a];
        unsigned numbers[24];
        unsigned n = 0;
        for (size_t i = 0; i < 8 && calls->process[i] >= 0; i++) numbers[n++] = (unsigned)calls->process[i];
        if (deny_keyring) {
            for (size_t i = 0; i < 3; i++) numbers[n++] = (unsigned)calls->keyring[i];
        }
        if (deny_mounts) {
            for (size_t i = 0; i < 13 && calls->mounts[i] >= 0; i++) numbers[n++] = (unsigned)calls->mounts[i];
        }
        unsigned ioctls = calls->ioctl[1] >= 0 ? 2 : 1;
        /* The ioctl check: its number tests, the argument load, the request tests. */
        unsigned check = ioctls + 1 + (unsigned)DENIED_REQUEST_COUNT;
        /* Not this architecture: skip its block (load, mask, the tests, the check, the allow). */
        filter[count++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, calls->arch, 0, (uint8_t)(n + check + 3));
        filter[count++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        filter[count++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, calls->mask);
        for (unsigned i = 0; i < n; i++) {
            denials[denial_count++] = count;
            filter[count++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, numbers[i], 0, 0);
        }
        for (unsigned i = 0; i < ioctls; i++) {
            /* To the load after the last ioctl test; not ioctl after the last: to the allow. */
            unsigned to_load = ioctls - 1 - i;
            unsigned to_allow = i + 1 == ioctls ? 1 + (unsigned)DENIED_REQUEST_COUNT : 0;
            filter[count++] = (struct sock_filter)BPF_JUMP(
                BPF_JMP | BPF_JEQ | BPF_K, (unsigned)calls->ioctl[i], (uint8_t)to_load, (uint8_t)to_allow);
        }
        filter[count++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
        for (unsigned i = 0; i < DENIED_REQUEST_COUNT; i++) {
            denials[denial_count++] = count;
            filter[count++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, denied_requests[i], 0, 0);
        }
        filter[count++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    }
    filter[count++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
    unsigned deny = count;
    filter[count++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    for (unsigned i = 0; i < denial_count; i++) filter[denials[i]].jt = (uint8_t)(deny - denials[i] - 1);
    struct sock_fprog program = {.len = (unsigned short)count, .filter = filter};
    return with_no_new_privs_if_needed(install_program, &program, EACCES);
}

/* Landlock (Linux 5.13 and later, when the LSM is enabled). */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#define LANDLOCK_VERSION_FLAG (1U << 0)
#define LANDLOCK_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET_FLAG (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL_FLAG (1ULL << 1)

/* The ruleset attribute as of ABI 6 (the system headers may be older). */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

int cspawn_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_VERSION_FLAG);
    return abi < 0 ? 0 : (int)abi;
}

static int restrict_self(const void *ruleset) { return (int)syscall(SYS_landlock_restrict_self, *(const int *)ruleset, 0); }

#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#define LANDLOCK_RULE_PATH_BENEATH_TYPE 1

/* The rights of ABI 1-3 that change the file system, less MAKE_BLOCK (never granted), and those of
   them that a rule on a file (not a folder) may carry. */
#define LANDLOCK_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_FS_CHANGES_V1 ((1ULL << 1) | (1ULL << 4) | (1ULL << 5) | (1ULL << 6) | (1ULL << 7) | (1ULL << 8) | \
                                (1ULL << 9) | (1ULL << 10) | (1ULL << 12))
#define LANDLOCK_FS_REFER (1ULL << 13)
#define LANDLOCK_FS_TRUNCATE (1ULL << 14)

struct path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/* Allows `access` beneath `path` in `ruleset` (the path opened O_PATH, then closed). */
static int allow_beneath(int ruleset, const char *path, uint64_t access) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    struct path_beneath rule = {.allowed_access = access, .parent_fd = fd};
    long added = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH_TYPE, &rule, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return added == 0 ? 0 : -1;
}

/* Puts this thread (and what it execs) in a new Landlock domain. Any domain, whatever it handles,
   confines ptrace and /proc/PID/{mem,environ,fd} to the domain and those nested in it: the command
   can no longer act as the shell that started keychainctl, or as any other process of the user.
   What the domain handles is the least that is allowed: from ABI 6 only its scopes (the command
   cannot signal a process outside it, nor, with `scope_abstract_sockets`, connect to an abstract
   unix socket one made: a same-user service listening there is not its to ask), before that the creation of block
   devices, which also keeps mount and pivot_root from the command. With `writable` folders, it also handles every change to
   the file system (writing, creating, removing, renaming, truncating), allowed only beneath those
   folders and on /dev/null. No Landlock: 0, and the seccomp filter is the only line (with
   `writable`, -1 with ENOSYS: a write allow-list that cannot be enforced is refused). */
static int enter_landlock_domain(const char *const *writable, size_t writable_count, int scope_abstract_sockets) {
    int abi = cspawn_landlock_abi();
    if (abi < 1) {
        if (writable_count == 0) return 0;
        errno = ENOSYS;
        return -1;
    }
    struct ruleset_attr attr = {0};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 6) {
        attr.scoped = LANDLOCK_SCOPE_SIGNAL_FLAG | (scope_abstract_sockets ? LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET_FLAG : 0);
        size = sizeof attr;
    } else {
        attr.handled_access_fs = LANDLOCK_FS_MAKE_BLOCK;
    }
    uint64_t changes = LANDLOCK_FS_CHANGES_V1 | (abi >= 2 ? LANDLOCK_FS_REFER : 0) | (abi >= 3 ? LANDLOCK_FS_TRUNCATE : 0);
    if (writable_count > 0) attr.handled_access_fs |= changes | LANDLOCK_FS_MAKE_BLOCK;
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) return -1;
    int result = 0;
    for (size_t i = 0; result == 0 && i < writable_count; i++) result = allow_beneath(ruleset, writable[i], changes);
    if (result == 0 && writable_count > 0) {
        result = allow_beneath(ruleset, "/dev/null", LANDLOCK_FS_WRITE_FILE | (abi >= 3 ? LANDLOCK_FS_TRUNCATE : 0));
    }
    if (result == 0) result = with_no_new_privs_if_needed(restrict_self, &ruleset, EPERM);
    int saved = errno;
    close(ruleset);
    errno = saved;
    return result;
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

/* The first half of preparing: the cgroup, descriptors, signals, keyring; nothing that confines
   yet. Whether the cgroup was joined goes in `view->cgroup` (not joining is not a failure: what the
   program leaves is then ended through the subreaper alone). */
static int prepare_process(const struct cspawn_options *options, struct cspawn_view *view) {
    if (options->cgroup_procs >= 0) view->cgroup = write(options->cgroup_procs, "0", 1) == 1;
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
    return close_all_but(options->keep, options->keep_count);
}

/* The second half: the view of its own, the Landlock domain, the seccomp filter. */
static int confine(const struct cspawn_options *options, struct cspawn_view *view) {
    if (options->own_view && cspawn_enter_view(options, view) != 0) return -1;
    if (enter_landlock_domain(options->writable, options->writable_count, options->scope_abstract_sockets) != 0) return -1;
    /* Root keeps CAP_SYS_ADMIN in its own user namespace: it could unmount what covers a file. */
    return deny_calls(options->deny_keyring, view->own && geteuid() == 0);
}

/* Makes this process ready to become the program: the options above, in place, with what the view
   came to in `*view` (zeroed by the caller). 0, or -1 with errno set (nothing is undone). */
static int prepare(const struct cspawn_options *options, struct cspawn_view *view) {
    if (prepare_process(options, view) != 0) return -1;
    return confine(options, view);
}

/* Ends the monitor as its program ended: the same status, or the same signal (no core: the
   monitor is a copy of keychainctl's memory). */
static void end_as(int status) {
    if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
    int number = WTERMSIG(status);
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    struct sigaction fallback = {.sa_handler = SIG_DFL};
    sigaction(number, &fallback, NULL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, number);
    sigprocmask(SIG_UNBLOCK, &only, NULL);
    kill(getpid(), number);
    _exit(128 + number);
}

/* The monitor of a program on a terminal of its own (`terminal`), with every signal blocked since
   before the program was forked: passes each signal to the program, follows its stops, ends as it
   ended. Holds no descriptor; dies with keychainctl. Never returns. */
static void run_monitor(pid_t program, pid_t keychainctl) {
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (getppid() != keychainctl) kill(getpid(), SIGKILL);
    if (syscall(SYS_close_range, 0U, ~0U, 0U) != 0) {
        for (int fd = 0; fd < 1024; fd++) close(fd);
    }
    sigset_t all;
    sigfillset(&all);
    for (;;) {
        siginfo_t info;
        int number = sigwaitinfo(&all, &info);
        if (number < 0) continue;
        if (number != SIGCHLD) {
            if (number != SIGCONT) kill(program, number);
            continue;
        }
        int status;
        pid_t ended;
        while ((ended = waitpid(program, &status, WNOHANG | WUNTRACED)) > 0) {
            if (!WIFSTOPPED(status)) end_as(status);
            /* keychainctl sees its child stop, gives the terminal back and stops itself; continued,
               it continues this process, which continues the program. */
            kill(getpid(), SIGSTOP);
            kill(-program, SIGCONT);
        }
    }
}

/* In the forked child when the program gets a terminal of its own: makes the session, forks the
   program (which returns 0 here, in its own foreground process group) and becomes its monitor in
   the parent. -1 with errno when the session could not be made. */
static int split_for_terminal(const struct cspawn_options *options, int report) {
    pid_t keychainctl = getppid();
    if (setsid() < 0 || ioctl(options->terminal, TIOCSCTTY, 0) != 0) return -1;
    /* The monitor waits for the program: SIGCHLD must not be ignored, and none may be missed. */
    struct sigaction fallback = {.sa_handler = SIG_DFL};
    sigaction(SIGCHLD, &fallback, NULL);
    sigset_t all, before;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &before);
    pid_t program = fork();
    if (program < 0) return -1;
    if (program > 0) {
        close(report);
        run_monitor(program, keychainctl);
    }
    /* A group of its own with the terminal's foreground, taken from the background without a stop. */
    if (setpgid(0, 0) != 0 || tcsetpgrp(options->terminal, getpid()) != 0) return -1;
    sigprocmask(SIG_SETMASK, &before, NULL);
    return 0;
}

/* What the child reports through the close-on-exec pipe: its view just before execve, or the errno
   of what failed. */
struct report {
    int failed;
    int error;
    struct cspawn_view view;
};

static void send_report(int fd, const struct report *report) {
    while (write(fd, report, sizeof *report) < 0 && errno == EINTR) {}
}

/* A user other than root makes its user namespace from a fresh image of keychainctl: writing its
   own uid_map needs a dumpable process, and the forked child, a copy of keychainctl's memory (the
   keychain's key among it), must never be one. The fresh image, `cspawn_view_main`, holds only what
   the program gets (its arguments and environment) and confines itself before it becomes the
   program. Its arguments: the marker, the report descriptor, the options, "--", path, argv. */
#define VIEW_MARKER "keychainctl-exec-view"

static char *format(const char *prefix, const char *text) {
    size_t a = strlen(prefix), b = strlen(text);
    char *joined = malloc(a + b + 1);
    if (!joined) return NULL;
    memcpy(joined, prefix, a);
    memcpy(joined + a, text, b + 1);
    return joined;
}

/* The fresh image's arguments, or NULL (errno ENOMEM). Freed with `free_words`. */
static char **view_arguments(const char *path, char *const argv[], const struct cspawn_options *options, int report) {
    size_t argc = 0;
    while (argv[argc]) argc++;
    size_t count = 8 + options->hide_count + options->sockets_allowed_count + options->writable_count + argc;
    char **words = calloc(count, sizeof *words);
    if (!words) return NULL;
    size_t n = 0;
    char number[64];
    words[n++] = strdup(VIEW_MARKER);
    snprintf(number, sizeof number, "%d", report);
    words[n++] = strdup(number);
    snprintf(number, sizeof number, "flags=%d%d", options->deny_keyring ? 1 : 0, options->scope_abstract_sockets ? 1 : 0);
    words[n++] = strdup(number);
    for (size_t i = 0; i < options->hide_count; i++) words[n++] = format("hide=", options->hide[i]);
    for (size_t i = 0; i < options->sockets_allowed_count; i++) {
        snprintf(number, sizeof number, "allow=%llu:%llu", (unsigned long long)options->sockets_allowed[i].device,
                 (unsigned long long)options->sockets_allowed[i].inode);
        words[n++] = strdup(number);
    }
    for (size_t i = 0; i < options->writable_count; i++) words[n++] = format("writable=", options->writable[i]);
    words[n++] = strdup("--");
    words[n++] = strdup(path);
    for (size_t i = 0; i < argc; i++) words[n++] = strdup(argv[i]);
    for (size_t i = 0; i < n; i++) {
        if (!words[i]) {
            for (size_t j = 0; j < n; j++) free(words[j]);
            free(words);
            errno = ENOMEM;
            return NULL;
        }
    }
    return words;
}

static void free_words(char **words) {
    if (!words) return;
    for (size_t i = 0; words[i]; i++) free(words[i]);
    free(words);
}

int cspawn_view_main(int argc, char **argv, char **envp) {
    if (argc < 5 || strcmp(argv[0], VIEW_MARKER) != 0) return 0;
    int out = atoi(argv[1]);
    fcntl(out, F_SETFD, FD_CLOEXEC);
    struct cspawn_options options = {.terminal = -1, .cgroup_procs = -1};
    const char **hide = calloc((size_t)argc, sizeof *hide);
    const char **writable = calloc((size_t)argc, sizeof *writable);
    struct cspawn_file_id *allowed = calloc((size_t)argc, sizeof *allowed);
    struct report sent = {0};
    int word = 2;
    if (!hide || !writable || !allowed) {
        errno = ENOMEM;
        goto failed;
    }
    for (; word < argc && strcmp(argv[word], "--") != 0; word++) {
        const char *text = argv[word];
        if (strncmp(text, "flags=", 6) == 0 && strlen(text) == 8) {
            options.deny_keyring = text[6] == '1';
            options.scope_abstract_sockets = text[7] == '1';
        } else if (strncmp(text, "hide=", 5) == 0) {
            hide[options.hide_count++] = text + 5;
        } else if (strncmp(text, "writable=", 9) == 0) {
            writable[options.writable_count++] = text + 9;
        } else if (strncmp(text, "allow=", 6) == 0) {
            unsigned long long device = 0, inode = 0;
            if (sscanf(text + 6, "%llu:%llu", &device, &inode) != 2) break;
            allowed[options.sockets_allowed_count++] = (struct cspawn_file_id){(dev_t)device, (ino_t)inode};
        } else {
            break;
        }
    }
    if (word + 1 >= argc || strcmp(argv[word], "--") != 0) {
        errno = EINVAL;
        goto failed;
    }
    options.own_view = 1;
    options.hide = hide;
    options.writable = writable;
    options.sockets_allowed = allowed;
    if (confine(&options, &sent.view) == 0) {
        send_report(out, &sent);
        execve(argv[word + 1], argv + word + 2, envp);
    }
failed:
    sent.failed = 1;
    sent.error = errno;
    send_report(out, &sent);
    _exit(127);
}

pid_t cspawn_start(const char *path, char *const argv[], char *const envp[], const struct cspawn_options *options,
                   struct cspawn_view *view) {
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -1;
    /* Kept clear of the descriptors the dups write, in the child and (the same number) here. */
    if (report[1] < 3) {
        int moved = fcntl(report[1], F_DUPFD_CLOEXEC, 3);
        close(report[1]);
        report[1] = moved;
    }
    char **fresh = NULL;
    if (options->own_view && geteuid() != 0 && report[1] >= 0) fresh = view_arguments(path, argv, options, report[1]);
    if (report[1] < 0 || (options->own_view && geteuid() != 0 && !fresh)) {
        int saved = errno;
        close(report[0]);
        if (report[1] >= 0) close(report[1]);
        free_words(fresh);
        errno = saved;
        return -1;
    }
    pid_t child = fork();
    if (child < 0) {
        int saved = errno;
        close(report[0]);
        close(report[1]);
        free_words(fresh);
        errno = saved;
        return -1;
    }
    if (child == 0) {
        close(report[0]);
        int out = report[1];
        struct report sent = {0};
        if (options->terminal >= 0 && split_for_terminal(options, out) != 0) {
            /* Nothing to start: reported below. */
        } else if (fresh) {
            /* The report descriptor stays open across this execve only. */
            if (prepare_process(options, &sent.view) == 0 && fcntl(out, F_SETFD, 0) == 0) {
                /* The fresh image reports its view; whether the cgroup was joined is said here. */
                send_report(out, &sent);
                execve("/proc/self/exe", fresh, envp);
            }
        } else if (prepare(options, &sent.view) == 0) {
            send_report(out, &sent);
            execve(path, argv, envp);
        }
        sent.failed = 1;
        sent.error = errno;
        send_report(out, &sent);
        _exit(127);
    }
    close(report[1]);
    free_words(fresh);
    /* The view, then EOF once execve closed the pipe, or a failure (after the view or instead). */
    struct report received = {0};
    struct cspawn_view seen = {0};
    int failed = 0, error = 0;
    for (;;) {
        ssize_t got = read(report[0], &received, sizeof received);
        if (got < 0 && errno == EINTR) continue;
        if (got != (ssize_t)sizeof received) break;
        if (received.failed) {
            failed = 1;
            error = received.error;
        } else {
            int cgroup = seen.cgroup || received.view.cgroup;
            seen = received.view;
            seen.cgroup = cgroup;
        }
    }
    close(report[0]);
    if (view) *view = seen;
    if (failed) {
        int status;
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
        errno = error;
        return -1;
    }
    return child;
}

int cspawn_pipe(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

int cspawn_sealed_file(const char *name, const void *bytes, size_t count) {
    /* Not executable where the kernel can say so (6.3 and later); older kernels refuse the flag. */
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL) fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    const unsigned char *next = bytes;
    size_t left = count;
    int failed = fchmod(fd, 0400) != 0;
    while (!failed && left > 0) {
        ssize_t wrote = write(fd, next, left);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            failed = 1;
            break;
        }
        next += wrote;
        left -= (size_t)wrote;
    }
    if (!failed && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0) failed = 1;
    if (failed) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int cspawn_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }
