#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
static inline void (*csqlite_transient(void))(void *) { return (void (*)(void *))-1; }

/* sqlite3_config is variadic too: SQLite configured for one short command, before it initialises
   (afterwards each call returns SQLITE_MISUSE and changes nothing):
   - no memory statistics, whose upkeep takes a global mutex on every allocation SQLite makes (a
     twentieth of a find's instructions);
   - no bulk page-cache allocation: by default a connection's first page read allocates room for 20
     pages at once and writes a header into each, so a find that reads 8 pages touched 20, each a
     page fault (a find: 15 faults and about 0.1 ms fewer; pages are allocated one by one instead). */
static inline int csqlite_configure_for_one_command(void) {
    int status = sqlite3_config(SQLITE_CONFIG_PAGECACHE, (void *)0, 0, 0);
    return status != SQLITE_OK ? status : sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* sqlite3_db_config is variadic, which Swift cannot call: the hardening a connection to an
   untrusted file gets (SQLite's "Defense Against The Dark Arts"), in one call. Returns SQLITE_OK or
   the first failure. */
static inline int csqlite_harden(sqlite3 *db) {
    int status;
    if ((status = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0)) != SQLITE_OK) return status;
    if ((status = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0)) != SQLITE_OK) return status;
    if ((status = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0)) != SQLITE_OK) return status;
    if ((status = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0)) != SQLITE_OK) return status;
    if ((status = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)0)) != SQLITE_OK) return status;
    return SQLITE_OK;
}
