#ifndef CSPAWN_H
#define CSPAWN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* A file by device and inode: what a path names when it is checked, whatever the path becomes. */
struct cspawn_file_id {
    dev_t device;
    ino_t inode;
};

/* Starting a program keychainctl hands secrets to (exec's command, git) with nothing it could use
   to reach back: written in C because the child between fork and execve may call only
   async-signal-safe functions, and posix_spawn cannot join a keyring, enter a Landlock domain or
   install a filter. */

/* What the new program gets besides its arguments and environment. */
struct cspawn_options {
    /* Descriptors to duplicate before anything else: `dup_from[i]` becomes `dup_to[i]`. */
    const int *dup_from;
    const int *dup_to;
    size_t dup_count;
    /* Descriptors of 3 and up that stay open across execve; every other one is closed. */
    const int *keep;
    size_t keep_count;
    /* Open /dev/null on descriptor 0 first (git: never a terminal to prompt on). */
    int null_stdin;
    /* Join a new, empty session keyring: no key cached in this process's session keyring is
       possessed by the program. */
    int new_session_keyring;
    /* Deny add_key, request_key and keyctl (EPERM, as a container's default profile does) to the
       program and everything it starts. Whatever this says, the program starts in a Landlock domain
       of its own where the kernel has Landlock, and ptrace, process_vm_readv/writev and pidfd_getfd
       are denied to it by seccomp: it cannot act as any other process of the user. */
    int deny_keyring;
    /* Folders beneath which the program may change the file system (write, create, remove, rename,
       truncate); none: anywhere its user may. Given any, it may change nothing else but /dev/null,
       which needs Landlock (ENOSYS without). */
    const char *const *writable;
    size_t writable_count;
    /* Scope abstract unix sockets too (Landlock ABI 6): the program cannot connect to one that a
       process outside its domain listens on. exec's command, not the tools keychainctl runs for
       itself (a clipboard tool must reach the display's socket). */
    int scope_abstract_sockets;
    /* A view of the file system of the program's own: a mount namespace (inside a user namespace of
       its own unless this process is root) in which each path of `hide` (a key file) and every unix
       socket bound to a path when the program starts that this user could connect to (a same-user
       service: tmux, the session bus, docker.sock, an agent), other than those `sockets_allowed`
       names, is covered by /dev/null, read-only; with `writable` folders, every mount but those
       folders is read-only too (no chmod, chown, utime or setxattr elsewhere). A root program is
       also denied the mount calls and setns, which could uncover what is covered. Where no
       namespace can be made (user namespaces off, a container's seccomp profile), the program
       starts without this view: `cspawn_start` says which. */
    int own_view;
    const char *const *hide;
    size_t hide_count;
    const struct cspawn_file_id *sockets_allowed;
    size_t sockets_allowed_count;
    /* An open cgroup.procs of a cgroup made for the program, or -1: the program writes its pid
       there first, so it and everything it starts are in that cgroup (which keychainctl kills
       whole when it ends), and its view (`own_view`) is also a cgroup namespace rooted there, so
       that it cannot move itself out. */
    int cgroup_procs;
    /* A pseudo-terminal's slave, or -1. Given one, the program runs in a new session whose
       controlling terminal it is, in a process group of its own that has the terminal's
       foreground, under a monitor: a process that leads the session (so that the program's group
       is not orphaned and ^Z stops it), is the pid `cspawn_start` returns, passes every signal it
       is sent to the program, stops itself when the program stops and continues the program's
       group when continued, and ends as the program ended (its status, or its signal without a
       core dump). The caller puts the slave on the descriptors the program is to have it on with
       `dup_from`/`dup_to`. */
    int terminal;
    /* The signal mask, and the signals whose disposition goes back to the default; NULL: as is. */
    const sigset_t *mask;
    const sigset_t *defaults;
};

/* What the program's view of the file system came to (`own_view`), and its cgroup. */
struct cspawn_view {
    /* 1: the program runs in a mount namespace of its own, as `own_view` says; 0: it does not. */
    int own;
    /* Without one: the errno of the namespace call the system refused. */
    int refused;
    /* How many sockets were covered. */
    int sockets_covered;
    /* 1: the program joined the cgroup of `cgroup_procs`. */
    int cgroup;
};

/* Forks a child that applies `options` and execve's `path`. Returns the child's pid, or -1 with
   errno set when the fork failed or the child could not prepare or start the program (its errno
   is reported back through a close-on-exec pipe; the child is reaped then). `*view` (may be
   NULL) says what the program's view of the file system came to. */
pid_t cspawn_start(const char *path, char *const argv[], char *const envp[], const struct cspawn_options *options,
                   struct cspawn_view *view);

/* When this process is the fresh image `cspawn_start` runs for a user other than root to make the
   program's own view (its first argument says so): confines itself and becomes the program, never
   returning. Otherwise returns 0 at once. Called first thing in main. */
int cspawn_view_main(int argc, char **argv, char **envp);

/* The Landlock ABI this kernel offers (0: none, or disabled): whether a started program's ptrace
   and /proc/PID access are confined to its own domain, or only its ptrace calls denied. */
int cspawn_landlock_abi(void);

/* A file in memory holding `count` bytes of `bytes`, mode 0400, sealed so that nobody can change,
   grow or shrink it, and not executable where the kernel can say so: its close-on-exec
   descriptor, or -1 with errno set. A program given the descriptor opens it as /dev/fd/N; no
   process outside the program's Landlock domain can open it through /proc. */
int cspawn_sealed_file(const char *name, const void *bytes, size_t count);

/* pipe2(fds, O_CLOEXEC), which Glibc's Swift module does not declare. */
int cspawn_pipe(int fds[2]);

/* Makes this process a child subreaper (PR_SET_CHILD_SUBREAPER): a process its children leave
   behind, setsid'd or double-forked, becomes its child when orphaned, so that it can end them.
   0, or -1 with errno. */
int cspawn_become_subreaper(void);

#endif
