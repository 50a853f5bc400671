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

#endif
