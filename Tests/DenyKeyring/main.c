/* deny-keyring ERRNO CMD [ARG...]: runs CMD under a seccomp filter that fails add_key, keyctl and
   request_key with ERRNO (EPERM as Docker's default profile does, or ENOSYS), so that tests can
   see what keychainctl does where the kernel keyring is blocked.
   deny-keyring SESSION CMD [ARG...]: runs CMD in a new anonymous session keyring of its own (as a
   login or `keyctl session -` gives), blocking nothing. Test support only. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DENY(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (error & SECCOMP_RET_DATA))

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: deny-keyring EPERM|ENOSYS CMD [ARG...]\n");
        return 64;
    }
    if (strcmp(argv[1], "SESSION") == 0) {
        if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0) {
            perror("deny-keyring: join a session keyring");
            return 71;
        }
        execvp(argv[2], argv + 2);
        perror("deny-keyring: exec");
        return 127;
    }
    unsigned error = strcmp(argv[1], "ENOSYS") == 0 ? ENOSYS : EPERM;
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        DENY(SYS_add_key),
        DENY(SYS_keyctl),
        DENY(SYS_request_key),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("deny-keyring: seccomp");
        return 71;
    }
    execvp(argv[2], argv + 2);
    perror("deny-keyring: exec");
    return 127;
}
