#ifndef CTERMINAL_H
#define CTERMINAL_H

/* Echo off on a terminal for a no-echo prompt, with the settings restored on every way out:
   cterminal_echo_restore, or a signal (INT, TERM, HUP, QUIT: restored, then the signal's default
   action; TSTP, TTIN, TTOU: restored while stopped, echo off again on continue). Signal handlers
   cannot be written in Swift, hence this file. */

/* Saves fd's settings, installs the handlers and turns echo off (no input is discarded).
   Returns 0, or -1 with errno set (not a terminal, or the settings could not be changed). */
int cterminal_echo_off(int fd);

/* Restores the saved settings and the previous signal handlers. Returns 0, or -1 with errno. */
int cterminal_echo_restore(void);

/* A terminal of its own for a program run from this one (exec's command): a new pseudo-terminal
   whose master (non-blocking) goes in *master and whose slave goes in *slave, both close-on-exec
   and neither this process's controlling terminal, the slave with `like`'s settings and window
   size. 0, or -1 with errno set (nothing left open). */
int cterminal_open_pty(int like, int *master, int *slave);

/* Gives terminal `to` (a pty master) the window size of terminal `from`. 0, or -1 with errno. */
int cterminal_copy_window(int from, int to);

/* Raw mode on terminal `fd` (its settings kept for cterminal_raw_restore), so that every byte typed
   goes to the program's own terminal, which interprets it. Changing the settings of a terminal whose
   foreground this process is not fails (EIO) rather than stopping it. 0, or -1 with errno. */
int cterminal_raw(int fd);

/* Restores what cterminal_raw changed, if anything. 0, or -1 with errno. */
int cterminal_raw_restore(void);

/* Whether this process is in the foreground process group of terminal `fd`. */
int cterminal_foreground(int fd);

#endif
