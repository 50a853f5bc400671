/* Test support only: runs a command where the kernel lacks what keychainctl would use.
   deny-keyring EPERM|ENOSYS CMD [ARG...]: add_key, keyctl and request_key fail with that errno
   (EPERM as Docker's default seccomp profile fails them, ENOSYS as a kernel without keys).
   deny-keyring SESSION CMD [ARG...]: CMD runs in a new anonymous session keyring of its own (as a
   login or `keyctl session -` gives), blocking nothing; on a machine without a keyring, as it is.
   deny-keyring NOLANDLOCK CMD [ARG...]: as SESSION, and the Landlock calls fail with ENOSYS, as on
   a kernel before 5.13 or one booted without the Landlock LSM. */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Fails the system calls `numbers` with `error` for this process and what it runs. */
static int deny(const long *numbers, size_t count, unsigned error) {
    struct sock_filter filter[16];
    size_t length = 0;
    filter[length++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (size_t i = 0; i < count; i++) {
        filter[length++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)numbers[i], 0, 1);
        filter[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (error & SECCOMP_RET_DATA));
    }
    filter[length++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog program = {.len = (unsigned short)length, .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("deny-keyring: seccomp");
        return -1;
    }
    return 0;
}

/* Where the machine has no keyring to join (a container's seccomp profile answers EPERM or ENOSYS),
   there is nothing to keep CMD's keys apart from either: it runs as it is. */
static int join_session_keyring(void) {
    if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, NULL) < 0) {
        if (errno == EPERM || errno == ENOSYS) return 0;
        perror("deny-keyring: join a session keyring");
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: deny-keyring EPERM|ENOSYS|SESSION|NOLANDLOCK CMD [ARG...]\n");
        return 64;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "SESSION") == 0 || strcmp(mode, "NOLANDLOCK") == 0) {
        if (join_session_keyring() != 0) return 71;
        static const long landlock[] = {444, 445, 446};
        if (strcmp(mode, "NOLANDLOCK") == 0 && deny(landlock, 3, ENOSYS) != 0) return 71;
    } else {
        static const long keyring[] = {SYS_add_key, SYS_keyctl, SYS_request_key};
        if (deny(keyring, 3, strcmp(mode, "ENOSYS") == 0 ? ENOSYS : EPERM) != 0) return 71;
    }
    execvp(argv[2], argv + 2);
    perror("deny-keyring: exec");
    return 127;
}
