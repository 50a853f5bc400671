#include "CBuildInfo.h"

#ifndef KEYCHAINCTL_COMMIT
#define KEYCHAINCTL_COMMIT "unknown"
#endif

const char *keychainctl_build_commit(void) { return KEYCHAINCTL_COMMIT; }
