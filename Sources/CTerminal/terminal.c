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
