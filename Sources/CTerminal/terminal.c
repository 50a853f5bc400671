#define _GNU_SOURCE
#include "CTerminal.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static volatile sig_atomic_t terminal_fd = -1;
static struct termios saved_settings;
static struct termios silent_settings;

static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU};
#define HANDLED_COUNT (sizeof handled / sizeof handled[0])
static struct sigaction previous_actions[HANDLED_COUNT];
static sigset_t previous_mask;

static void on_signal(int sig) {
    int saved_errno = errno;
    int fd = terminal_fd;
    if (fd >= 0) tcsetattr(fd, TCSANOW, &saved_settings);
    struct sigaction default_action, ours;
    memset(&default_action, 0, sizeof default_action);
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    sigaction(sig, &default_action, &ours);
    /* The handler runs with SA_NODEFER: a stop happens inside raise, a termination never returns. */
    raise(sig);
    sigaction(sig, &ours, NULL);
    if (fd >= 0 && terminal_fd == fd) tcsetattr(fd, TCSANOW, &silent_settings);
    errno = saved_errno;
}

int cterminal_echo_off(int fd) {
    if (tcgetattr(fd, &saved_settings) != 0) return -1;
    silent_settings = saved_settings;
    silent_settings.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    action.sa_flags = SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigset_t handled_set;
    sigemptyset(&handled_set);
    for (size_t i = 0; i < HANDLED_COUNT; i++) {
        sigaction(handled[i], &action, &previous_actions[i]);
        sigaddset(&handled_set, handled[i]);
    }
    /* A parent may have left these blocked (a thread pool's mask is inherited through exec): a
       prompt must still be interruptible. */
    sigprocmask(SIG_UNBLOCK, &handled_set, &previous_mask);
    terminal_fd = fd;
    if (tcsetattr(fd, TCSANOW, &silent_settings) != 0) {
        int saved_errno = errno;
        cterminal_echo_restore();
        errno = saved_errno;
        return -1;
    }
    return 0;
}

int cterminal_echo_restore(void) {
    int fd = terminal_fd;
    if (fd < 0) return 0;
    int status = tcsetattr(fd, TCSANOW, &saved_settings);
    int saved_errno = errno;
    terminal_fd = -1;
    for (size_t i = 0; i < HANDLED_COUNT; i++) sigaction(handled[i], &previous_actions[i], NULL);
    sigprocmask(SIG_SETMASK, &previous_mask, NULL);
    errno = saved_errno;
    return status;
}

/* ---- A terminal of its own (exec's command) ---- */

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>

int cterminal_open_pty(int like, int *master, int *slave) {
    int leader = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (leader < 0) return -1;
    char name[128];
    int follower = -1;
    if (grantpt(leader) == 0 && unlockpt(leader) == 0 && ptsname_r(leader, name, sizeof name) == 0) {
        follower = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    }
    struct termios settings;
    if (follower >= 0 && tcgetattr(like, &settings) == 0 && tcsetattr(follower, TCSANOW, &settings) != 0) {
        close(follower);
        follower = -1;
    }
    if (follower < 0 || fcntl(leader, F_SETFL, fcntl(leader, F_GETFL) | O_NONBLOCK) != 0) {
        int saved = errno;
        if (follower >= 0) close(follower);
        close(leader);
        errno = saved;
        return -1;
    }
    cterminal_copy_window(like, leader);
    *master = leader;
    *slave = follower;
    return 0;
}

int cterminal_copy_window(int from, int to) {
    struct winsize size;
    if (ioctl(from, TIOCGWINSZ, &size) != 0) return -1;
    return ioctl(to, TIOCSWINSZ, &size);
}

static int raw_fd = -1;
static struct termios raw_saved;

/* tcsetattr from a background process group stops the process with SIGTTOU unless the signal is
   ignored: ignored here, so that restoring after the shell took the terminal back never stops
   keychainctl with the terminal half set. */
static int set_ignoring_ttou(int fd, const struct termios *settings) {
    struct sigaction ignore, previous;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGTTOU, &ignore, &previous);
    int status;
    do {
        status = tcsetattr(fd, TCSADRAIN, settings);
    } while (status != 0 && errno == EINTR);
    int saved = errno;
    sigaction(SIGTTOU, &previous, NULL);
    errno = saved;
    return status;
}

int cterminal_raw(int fd) {
    if (raw_fd >= 0) return 0;
    struct termios settings;
    if (tcgetattr(fd, &settings) != 0) return -1;
    struct termios raw = settings;
    cfmakeraw(&raw);
    if (!cterminal_foreground(fd)) {
        errno = EIO;
        return -1;
    }
    if (set_ignoring_ttou(fd, &raw) != 0) return -1;
    raw_saved = settings;
    raw_fd = fd;
    return 0;
}

int cterminal_raw_restore(void) {
    if (raw_fd < 0) return 0;
    int fd = raw_fd;
    raw_fd = -1;
    return set_ignoring_ttou(fd, &raw_saved);
}

int cterminal_foreground(int fd) {
    pid_t group = tcgetpgrp(fd);
    return group > 0 && group == getpgrp();
}
