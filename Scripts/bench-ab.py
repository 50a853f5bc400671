#!/usr/bin/env python3
"""Interleaved A/B timing of two keychainctl binaries against the sqlite3 floor.

On a noisy machine two `make bench` runs minutes apart disagree by more than the change being
measured. This alternates the two binaries run by run, each on its own 1,000-item keychain left by
`keychainctl-bench` (a keychain file is read only by the schema versions its binary knows), and
prints the medians and each binary's ratio to sqlite3's SELECT and INSERT timed in the same rounds.

    python3 Scripts/bench-ab.py OLD_BIN OLD_BENCH_DIR NEW_BIN NEW_BENCH_DIR [ROUNDS]

where *_BENCH_DIR is the `1000` folder a `keychainctl-bench BIN WORKDIR RUNS` run leaves in WORKDIR.
"""
import os
import statistics
import subprocess
import sys
import time

PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "Profiles", "app.plist")


def timed(command, env):
    start = time.perf_counter()
    result = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {result.returncode}")
    return elapsed


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    sides = {"old": (sys.argv[1], sys.argv[2]), "new": (sys.argv[3], sys.argv[4])}
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 101
    times = {side: {"find": [], "add": [], "select": [], "insert": []} for side in sides}
    for round_number in range(rounds):
        for side, (binary, folder) in sides.items():
            env = dict(os.environ, KEYCHAINCTL_KEYCHAIN=f"{folder}/keychain.db", KEYCHAINCTL_KEY_FILE=f"{folder}/key",
                       KEYCHAINCTL_PROFILE=PROFILE)
            floor = f"{folder}/floor.db"
            times[side]["find"].append(timed([binary, "find", "-s", "service-500", "-a", "account-500", "-w"], env))
            times[side]["select"].append(timed(["sqlite3", floor, "SELECT v FROM t WHERE k = 'key-500'"], env))
            service = f"ab-{round_number}"
            times[side]["add"].append(timed([binary, "add", "-s", service, "-a", "x", "--data-file", f"{folder}/secret"], env))
            timed([binary, "delete", "-s", service, "-a", "x"], env)
            times[side]["insert"].append(timed(["sqlite3", floor, f"INSERT INTO t VALUES ('{service}-{side}', randomblob(64))"], env))
    for side in sides:
        median = {name: statistics.median(values) * 1000 for name, values in times[side].items()}
        print(f"{side}: " + ", ".join(f"{name} {value:.2f} ms" for name, value in median.items())
              + f"; find {median['find'] / median['select']:.2f}x SELECT, add {median['add'] / median['insert']:.2f}x INSERT")


if __name__ == "__main__":
    main()
