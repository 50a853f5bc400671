/* The program's own view of the file system (CSpawn.h, `own_view`): private to CSpawn. */
#ifndef CSPAWN_VIEW_H
#define CSPAWN_VIEW_H

#include "CSpawn.h"

/* Moves this process into a mount namespace of its own (and a user namespace, unless root) and
   covers what `options` says. 0 with `view->own` 1; 0 with `view->own` 0 and `view->refused` set
   when the system refuses a namespace (nothing changed); -1 with errno when covering failed
   half-way (the program must not start). Async-signal-safe: system calls only. */
int cspawn_enter_view(const struct cspawn_options *options, struct cspawn_view *view);

#endif
