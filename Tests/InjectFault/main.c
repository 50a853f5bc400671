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
     fail=CALL[@I=V]:ERRNO
                      the system call CALL fails with ERRNO (a name: EACCES, ENOSPC, EROFS, EIO...),
                      only when its argument I (0-5) is V when "@I=V" is given: keyctl@0=15 is
                      KEYCTL_SET_TIMEOUT
     fail=CALL[@I=V]:KILL
                      the process is killed (SIGSYS, at once) when it makes that call: the worst
                      moment, at the step in question
   Unknown settings are refused (exit 64); a setting that cannot be applied exits 71. */
#include <errno.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
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
    {"landlock_create_ruleset", 444}, {"landlock_add_rule", 445}, {"landlock_restrict_self", 446},
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

int main(int argc, char **argv) {
    struct rule rules[32];
    size_t count = 0;
    int session = 0, first = 1;
    long uid = -1, fsize = -1;
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
        } else if (strncmp(setting, "uid=", 4) == 0) {
            uid = strtol(setting + 4, NULL, 10);
        } else if (strncmp(setting, "fsize=", 6) == 0) {
            fsize = strtol(setting + 6, NULL, 10);
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
        fprintf(stderr, "usage: inject-fault [uid=N] [SESSION] [fsize=N] [EPERM|ENOSYS] [NOLANDLOCK] "
                        "[fail=CALL[@I=V]:ERRNO|KILL]... CMD [ARG...]\n");
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
    if (count > 0 && install(rules, count) != 0) return 71;
    execvp(argv[first], argv + first);
    perror("inject-fault: exec");
    return 127;
}
