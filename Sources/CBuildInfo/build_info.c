#include "CBuildInfo.h"

#ifndef KEYCHAINCTL_COMMIT
#define KEYCHAINCTL_COMMIT "unknown"
#endif

const char *keychainctl_build_commit(void) { return KEYCHAINCTL_COMMIT; }

/* The release number: VERSION holds it as a C string, for this file and the scripts alike. */
const char *keychainctl_version(void) {
    return
#include "VERSION"
        ;
}
