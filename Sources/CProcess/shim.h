#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>

/* prctl is variadic, which Swift cannot call. Makes the process write no core dump and refuse
   ptrace attachment by other processes of the same user (PR_SET_DUMPABLE 0), so that a crash or a
   debugger cannot copy the keys and secrets it holds. Returns 0, or -1 when either call failed. */
static inline int cprocess_protect_memory(void) {
    struct rlimit none = {0, 0};
    int status = setrlimit(RLIMIT_CORE, &none);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) status = -1;
    return status;
}

/* Whether the process is dumpable (1) or not (0), for tests. */
static inline int cprocess_is_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

/* A close-on-exec, non-blocking signalfd for `signals` (which the caller has blocked): `exec`
   reads forwarded signals and SIGCHLD from it in its poll loop, with the sender's pid. */
static inline int cprocess_signalfd(const sigset_t *signals) {
    return signalfd(-1, signals, SFD_CLOEXEC | SFD_NONBLOCK);
}
