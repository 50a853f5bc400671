/* Test support only: runs a command where the kernel fails, or is without, what keychainctl uses.

   inject-fault [SETTING...] CMD [ARG...], the settings applied in this order whatever their order:
     uid=N            run as user and group N (no supplementary groups): a user with a user keyring
                      of its own that no other test touches (needs root)
     SESSION          in a new anonymous session keyring (as `keyctl session -`, or a service's
                      private one): it does not link the user keyring; on a machine without a
                      keyring, as it is
     fsize=N          files may grow to N bytes, a write past that fails with EFBIG (a full disk)
     EPERM | ENOSYS   add_key, keyctl and request_key fail so (EPERM as Docker's default seccomp
                      profile fails them, ENOSYS as a kernel without keys)
     NOLANDLOCK       the Landlock calls fail with ENOSYS (a kernel before 5.13, or without the LSM)
     NONAMESPACE      unshare fails with EPERM (user namespaces turned off, or a container's
                      seccomp profile without CAP_SYS_ADMIN)
     fail=CALL[@I=V]:ERRNO
                      the system call CALL fails with ERRNO (a name: EACCES, ENOSPC, EROFS, EIO...),
                      only when its argument I (0-5) is V when "@I=V" is given: keyctl@0=15 is
                      KEYCTL_SET_TIMEOUT
     fail=CALL[@I=V]:KILL
                      the process is killed (SIGSYS, at once) when it makes that call: the worst
                      moment, at the step in question
     watch=CALL[,CALL...]
                      CMD (and what it starts) runs under a supervisor that sees each of these calls
                      before it runs, in one order across threads and processes, and appends a line
                      per call to the file of trace=PATH: "N<TAB>CALL<TAB>WHAT", N counting from 1,
                      WHAT the file the call acts on (the path behind its descriptor, or the path or
                      "OLD -> NEW" it names; "?" where the kernel does not let this process read it:
                      keychainctl makes itself undumpable, so reading it needs root)
     kill=N           with watch: CMD is killed with SIGKILL at the Nth watched call, before that call
                      runs (a crash at exactly that step); inject-fault then dies of SIGKILL too
   Unknown settings are refused (exit 64); a setting that cannot be applied exits 71. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/filter.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The calls a test may name, and the errnos. */
static const struct { const char *name; long number; } calls[] = {
    {"add_key", SYS_add_key}, {"keyctl", SYS_keyctl}, {"request_key", SYS_request_key},
    {"openat", SYS_openat}, {"write", SYS_write}, {"pwrite64", SYS_pwrite64}, {"fsync", SYS_fsync},
    {"fdatasync", SYS_fdatasync}, {"linkat", SYS_linkat}, {"renameat", SYS_renameat},
    {"renameat2", SYS_renameat2}, {"unlinkat", SYS_unlinkat}, {"ftruncate", SYS_ftruncate},
    {"exit_group", SYS_exit_group}, {"landlock_create_ruleset", 444}, {"landlock_add_rule", 445}, {"landlock_restrict_self", 446},
    {"unshare", SYS_unshare}, {"mkdir", SYS_mkdir}, {"mkdirat", SYS_mkdirat},
#ifdef SYS_link
    {"link", SYS_link}, {"rename", SYS_rename}, {"unlink", SYS_unlink},
#endif
};
static const struct { const char *name; int value; } errnos[] = {
    {"EPERM", EPERM}, {"EACCES", EACCES}, {"ENOSPC", ENOSPC}, {"EROFS", EROFS}, {"EIO", EIO},
    {"ENOSYS", ENOSYS}, {"EDQUOT", EDQUOT}, {"EXDEV", EXDEV}, {"EFBIG", EFBIG}, {"EINTR", EINTR}, {"EOPNOTSUPP", EOPNOTSUPP},
};

#define KILL_ACTION (-1)
struct rule { long call; int argument; unsigned value; int action; };

static long call_number(const char *name, size_t length) {
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (strlen(calls[i].name) == length && strncmp(calls[i].name, name, length) == 0) return calls[i].number;
    return -1;
}

static int errno_value(const char *name) {
    if (strcmp(name, "KILL") == 0) return KILL_ACTION;
    for (size_t i = 0; i < sizeof errnos / sizeof *errnos; i++)
        if (strcmp(errnos[i].name, name) == 0) return errnos[i].value;
    return 0;
}

/* "CALL[@I=V]:ACTION" → rule; 0 when it does not parse. */
static int parse_rule(const char *text, struct rule *rule) {
    const char *colon = strrchr(text, ':');
    if (colon == NULL) return 0;
    const char *at = memchr(text, '@', (size_t)(colon - text));
    rule->call = call_number(text, (size_t)((at ? at : colon) - text));
    rule->argument = -1;
    if (at != NULL) {
        char *end;
        long index = strtol(at + 1, &end, 10);
        if (*end != '=' || index < 0 || index > 5) return 0;
        rule->argument = (int)index;
        rule->value = (unsigned)strtoul(end + 1, &end, 0);
        if (end != colon) return 0;
    }
    rule->action = errno_value(colon + 1);
    return rule->call >= 0 && rule->action != 0;
}

/* Installs the rules for this process and what it runs. */
static int install(const struct rule *rules, size_t count) {
    struct sock_filter filter[8 * 32 + 2];
    size_t length = 0;
    for (size_t i = 0; i < count; i++) {
        const struct rule *rule = &rules[i];
        unsigned action = rule->action == KILL_ACTION ? SECCOMP_RET_KILL_PROCESS
                                                      : SECCOMP_RET_ERRNO | ((unsigned)rule->action & SECCOMP_RET_DATA);
        filter[length++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
        if (rule->argument < 0) {
            filter[length++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)rule->call, 0, 1);
        } else {
            filter[length++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)rule->call, 0, 3);
            /* The low half of the argument (little-endian, as on x86-64 and AArch64). */
            filter[length++] =
                (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[rule->argument]));
            filter[length++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, rule->value, 0, 1);
        }
        filter[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
    }
    filter[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog program = {.len = (unsigned short)length, .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("inject-fault: seccomp");
        return -1;
    }
    return 0;
}

/* Where the machine has no keyring to join (a container's seccomp profile answers EPERM or ENOSYS),
   there is nothing to keep CMD's keys apart from either: it runs as it is. */
static int join_session_keyring(void) {
    if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0) {
        if (errno == EPERM || errno == ENOSYS) return 0;
        perror("inject-fault: join a session keyring");
        return -1;
    }
    return 0;
}

/* ---- The supervisor of watch= and kill=: seccomp user notifications. ---- */

static const char *call_name(long number) {
    for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
        if (calls[i].number == number) return calls[i].name;
    return "?";
}

/* The file behind descriptor `fd` of thread `tid`, or "?". */
static void describe_fd(pid_t tid, long fd, char *out, size_t size) {
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%ld", tid, fd);
    ssize_t length = readlink(link, out, size - 1);
    if (length < 0) snprintf(out, size, "?");
    else out[length] = 0;
}

/* The NUL-terminated string at `address` in thread `tid`'s memory, read a page at most at a time
   (a string may end just before an unmapped page), or "?". */
static void read_string(pid_t tid, unsigned long long address, char *out, size_t size) {
    size_t have = 0;
    while (have + 1 < size) {
        size_t chunk = 4096 - (size_t)((address + have) % 4096);
        if (chunk > size - 1 - have) chunk = size - 1 - have;
        struct iovec local = {out + have, chunk}, remote = {(void *)(uintptr_t)(address + have), chunk};
        ssize_t got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
        if (got <= 0) break;
        if (memchr(out + have, 0, (size_t)got) != NULL) return;
        have += (size_t)got;
    }
    snprintf(out, size, "?");
}

/* What the call acts on: its descriptor's file, or the path(s) it names. */
static void describe(const struct seccomp_notif *request, char *out, size_t size) {
    const unsigned long long *arg = request->data.args;
    pid_t tid = (pid_t)request->pid;
    char first[PATH_MAX], second[PATH_MAX];
    switch (request->data.nr) {
    case SYS_write: case SYS_pwrite64: case SYS_fsync: case SYS_fdatasync: case SYS_ftruncate:
        describe_fd(tid, (long)(int)arg[0], out, size);
        return;
    case SYS_exit_group:
        snprintf(out, size, "%d", (int)arg[0]);
        return;
    case SYS_openat: case SYS_unlinkat:
        read_string(tid, arg[1], out, size);
        return;
    case SYS_renameat: case SYS_renameat2: case SYS_linkat:
        read_string(tid, arg[1], first, sizeof first);
        read_string(tid, arg[3], second, sizeof second);
        snprintf(out, size, "%s -> %s", first, second);
        return;
#ifdef SYS_link
    case SYS_unlink:
        read_string(tid, arg[0], out, size);
        return;
    case SYS_rename: case SYS_link:
        read_string(tid, arg[0], first, sizeof first);
        read_string(tid, arg[1], second, sizeof second);
        snprintf(out, size, "%s -> %s", first, second);
        return;
#endif
    default:
        snprintf(out, size, "?");
    }
}

/* In the child: a filter that hands each watched call to the supervisor; the listener's
   descriptor goes to it over `channel`. */
static int hand_over(const long *watched, size_t count, int channel) {
    struct sock_filter filter[2 * 32 + 2];
    size_t length = 0;
    filter[length++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (size_t i = 0; i < count; i++) {
        filter[length++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)watched[i], 0, 1);
        filter[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    }
    filter[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog program = {.len = (unsigned short)length, .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program);
    if (listener < 0) return -1;
    char control[CMSG_SPACE(sizeof(int))] = {0};
    char byte = 0;
    struct iovec data = {&byte, 1};
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &listener, sizeof(int));
    int sent = sendmsg(channel, &message, 0) == 1 ? 0 : -1;
    close(listener);
    return sent;
}

static int receive_listener(int channel) {
    char control[CMSG_SPACE(sizeof(int))] = {0};
    char byte;
    struct iovec data = {&byte, 1};
    struct msghdr message = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    if (recvmsg(channel, &message, 0) != 1) return -1;
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    if (header == NULL || header->cmsg_type != SCM_RIGHTS) return -1;
    int listener;
    memcpy(&listener, CMSG_DATA(header), sizeof(int));
    return listener;
}

/* In the parent: answers every watched call of `child` (and of what it starts) until it ends,
   recording each in `trace`, killing it at call `kill_at`; then ends as the child ended. */
static int supervise(pid_t child, int listener, FILE *trace, long kill_at) {
    struct seccomp_notif_sizes sizes;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) return 71;
    struct seccomp_notif *request = calloc(1, sizes.seccomp_notif > sizeof *request ? sizes.seccomp_notif : sizeof *request);
    struct seccomp_notif_resp *response =
        calloc(1, sizes.seccomp_notif_resp > sizeof *response ? sizes.seccomp_notif_resp : sizeof *response);
    if (request == NULL || response == NULL) return 71;
    long seen = 0;
    int status = 0;
    for (;;) {
        pid_t ended = waitpid(child, &status, WNOHANG);
        if (ended == child) break;
        struct pollfd ready = {listener, POLLIN, 0};
        if (poll(&ready, 1, 50) <= 0 || !(ready.revents & POLLIN)) continue;
        memset(request, 0, sizes.seccomp_notif);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, request) != 0) continue; /* the caller died meanwhile */
        seen++;
        char what[2 * PATH_MAX + 8];
        describe(request, what, sizeof what);
        fprintf(trace, "%ld\t%s\t%s\n", seen, call_name(request->data.nr), what);
        fflush(trace);
        if (seen == kill_at) {
            kill(child, SIGKILL);
            continue; /* unanswered: the call never runs */
        }
        memset(response, 0, sizes.seccomp_notif_resp);
        response->id = request->id;
        response->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, response);
    }
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 70;
}

int main(int argc, char **argv) {
    struct rule rules[32];
    size_t count = 0;
    int session = 0, first = 1;
    long uid = -1, fsize = -1, kill_at = 0;
    long watched[32];
    size_t watching = 0;
    const char *trace_path = NULL;
    for (; first < argc; first++) {
        const char *setting = argv[first];
        if (strcmp(setting, "SESSION") == 0) {
            session = 1;
        } else if (strcmp(setting, "EPERM") == 0 || strcmp(setting, "ENOSYS") == 0) {
            static const char *keyring[] = {"add_key", "keyctl", "request_key"};
            for (size_t i = 0; i < 3 && count < 32; i++)
                rules[count++] = (struct rule){call_number(keyring[i], strlen(keyring[i])), -1, 0, errno_value(setting)};
        } else if (strcmp(setting, "NOLANDLOCK") == 0) {
            session = 1;
            for (long call = 444; call <= 446 && count < 32; call++) rules[count++] = (struct rule){call, -1, 0, ENOSYS};
        } else if (strcmp(setting, "NONAMESPACE") == 0) {
            if (count < 32) rules[count++] = (struct rule){SYS_unshare, -1, 0, EPERM};
        } else if (strncmp(setting, "uid=", 4) == 0) {
            uid = strtol(setting + 4, NULL, 10);
        } else if (strncmp(setting, "fsize=", 6) == 0) {
            fsize = strtol(setting + 6, NULL, 10);
        } else if (strncmp(setting, "watch=", 6) == 0) {
            for (const char *name = setting + 6; *name;) {
                size_t length = strcspn(name, ",");
                long number = call_number(name, length);
                if (number < 0 || watching == 32) {
                    fprintf(stderr, "inject-fault: cannot watch %.*s\n", (int)length, name);
                    return 64;
                }
                watched[watching++] = number;
                name += length + (name[length] == ',');
            }
        } else if (strncmp(setting, "trace=", 6) == 0) {
            trace_path = setting + 6;
        } else if (strncmp(setting, "kill=", 5) == 0) {
            kill_at = strtol(setting + 5, NULL, 10);
        } else if (strncmp(setting, "fail=", 5) == 0) {
            if (count == 32 || !parse_rule(setting + 5, &rules[count++])) {
                fprintf(stderr, "inject-fault: cannot read %s\n", setting);
                return 64;
            }
        } else {
            break;
        }
    }
    if (first >= argc || first == 1) {
        fprintf(stderr, "usage: inject-fault [uid=N] [SESSION] [fsize=N] [EPERM|ENOSYS] [NOLANDLOCK] [NONAMESPACE] "
                        "[fail=CALL[@I=V]:ERRNO|KILL]... [watch=CALL,... trace=PATH [kill=N]] CMD [ARG...]\n");
        return 64;
    }
    if ((watching > 0) != (trace_path != NULL) || (kill_at != 0 && watching == 0) || kill_at < 0) {
        fprintf(stderr, "inject-fault: watch= and trace= go together, and kill=N (N >= 1) needs them\n");
        return 64;
    }
    if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0)) {
        perror("inject-fault: become the user");
        return 71;
    }
    if (session && join_session_keyring() != 0) return 71;
    if (fsize >= 0) {
        struct rlimit limit = {(rlim_t)fsize, (rlim_t)fsize};
        if (signal(SIGXFSZ, SIG_IGN) == SIG_ERR || setrlimit(RLIMIT_FSIZE, &limit) != 0) {
            perror("inject-fault: limit the file size");
            return 71;
        }
    }
    if (watching > 0) {
        FILE *trace = fopen(trace_path, "we");
        int channel[2];
        if (trace == NULL || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
            perror("inject-fault: the trace");
            return 71;
        }
        pid_t child = fork();
        if (child < 0) return 71;
        if (child == 0) {
            close(channel[0]);
            /* Dies with the supervisor: nothing runs on unwatched once it is gone. */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) _exit(71);
            if (count > 0 && install(rules, count) != 0) _exit(71);
            if (hand_over(watched, watching, channel[1]) != 0) {
                perror("inject-fault: seccomp user notification");
                _exit(71);
            }
            execvp(argv[first], argv + first);
            perror("inject-fault: exec");
            _exit(127);
        }
        close(channel[1]);
        int listener = receive_listener(channel[0]);
        if (listener < 0) {
            int status = 0;
            waitpid(child, &status, 0);
            return WIFEXITED(status) ? WEXITSTATUS(status) : 71;
        }
        return supervise(child, listener, trace, kill_at);
    }
    if (count > 0 && install(rules, count) != 0) return 71;
    execvp(argv[first], argv + first);
    perror("inject-fault: exec");
    return 127;
}
