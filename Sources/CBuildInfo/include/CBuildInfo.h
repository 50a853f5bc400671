#ifndef CBUILDINFO_H
#define CBUILDINFO_H

/* The commit the binary was built from: `make release` and `make dist` define KEYCHAINCTL_COMMIT
   (git's commit, with "-dirty" for a tree with changes); a plain `swift build` leaves it
   "unknown". A C string, so that it costs nothing until --version asks for it. */
const char *keychainctl_build_commit(void);

/* The release number, as Sources/CBuildInfo/VERSION writes it (the one place it is written). */
const char *keychainctl_version(void);

#endif
