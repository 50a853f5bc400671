#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The Linux kernel keyring through raw system calls (syscall(2) is variadic, which Swift cannot
   call; libkeyutils would be one more library for nine calls). Each returns what the system call
   returns, -1 with errno set on failure. Serials and special keyring ids are int32_t. */

#define CKEYRING_SPEC_PROCESS (-2)
#define CKEYRING_SPEC_SESSION (-3)
#define CKEYRING_SPEC_USER (-4)
#define CKEYRING_SPEC_USER_SESSION (-5)

/* Adds (or updates in place) a "user" key with this description and payload to `ring`. */
static inline long ckeyring_add(const char *description, const void *payload, size_t length, int32_t ring) {
    return syscall(SYS_add_key, "user", description, payload, length, ring);
}

/* The serial of a special keyring (`create` 0: do not create one that is missing). */
static inline long ckeyring_keyring_id(int32_t special, int create) {
    return syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, special, create);
}

/* Searches `ring` (and the keyrings linked under it) for the "user" key with this description. */
static inline long ckeyring_search(int32_t ring, const char *description) {
    return syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, ring, "user", description, 0);
}

/* Reads a key's payload (or a keyring's list of serials) into `buffer`; returns its full length,
   which may exceed `length` (then nothing past `length` was written). */
static inline long ckeyring_read(int32_t key, void *buffer, size_t length) {
    return syscall(SYS_keyctl, 11 /* KEYCTL_READ */, key, buffer, length);
}

/* Sets a key's expiry to `seconds` from now (0: never). */
static inline long ckeyring_set_timeout(int32_t key, unsigned seconds) {
    return syscall(SYS_keyctl, 15 /* KEYCTL_SET_TIMEOUT */, key, seconds);
}

/* Sets a key's permission mask. */
static inline long ckeyring_set_permissions(int32_t key, uint32_t permissions) {
    return syscall(SYS_keyctl, 5 /* KEYCTL_SETPERM */, key, permissions);
}

/* Writes a key's "type;uid;gid;perm;description" into `buffer`; returns the full length. */
static inline long ckeyring_describe(int32_t key, char *buffer, size_t length) {
    return syscall(SYS_keyctl, 6 /* KEYCTL_DESCRIBE */, key, buffer, length);
}

/* Links `key` into `ring` (displacing a key there of the same type and description). */
static inline long ckeyring_link(int32_t key, int32_t ring) {
    return syscall(SYS_keyctl, 8 /* KEYCTL_LINK */, key, ring);
}

/* Removes the link to `key` from `ring`. */
static inline long ckeyring_unlink(int32_t key, int32_t ring) {
    return syscall(SYS_keyctl, 9 /* KEYCTL_UNLINK */, key, ring);
}

/* Invalidates a key: it is gone from every keyring at once, its payload destroyed. */
static inline long ckeyring_invalidate(int32_t key) {
    return syscall(SYS_keyctl, 21 /* KEYCTL_INVALIDATE */, key);
}
