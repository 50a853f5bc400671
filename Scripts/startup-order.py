#!/usr/bin/env python3
"""Writes Scripts/startup.order: the code a short keychainctl command runs, for the linker to lay out
together.

A command runs a few thousand functions spread over a 16 MB static binary; each 4 KiB page of code
it touches first costs a page fault. `make release` compiles every function into a section of its
own and hands this list to the linker (gold's --section-ordering-file), which puts the listed
functions first, next to each other, so a find touches a few dense pages instead of hundreds of
scattered ones (docs/PERFORMANCE.md). The list names sections, not addresses: a function renamed or
removed since the list was written is skipped by the linker, and a new one lands with the rest,
so a stale list costs only speed. `make startup-order` rewrites it.

    python3 Scripts/startup-order.py BINARY [OUTPUT]

BINARY must keep its symbols (the unstripped `.build/release/keychainctl`; a copy without its debug
information, which valgrind cannot read, is what runs). Each command of the everyday set below runs
once under callgrind in a throwaway keychain, as the Quick start and the CI jobs use it; the
functions they execute are listed, those more commands run first, then by name.
"""
import os
import re
import subprocess
import sys
import tempfile

# Each command with the exit status it must end with (a find that matches nothing is 44).
COMMANDS = [
    (0, ["--version"]),
    (0, ["init", "--generate-key-file", "{dir}/keychain.key"]),
    (0, ["set", "api.example.com", "alice", "--data-file", "{dir}/secret"]),
    (0, ["get", "api.example.com", "alice"]),
    (0, ["find", "-s", "api.example.com", "-w"]),
    (44, ["find", "-s", "nothing.example.com"]),
    (0, ["add", "-s", "db.example.com", "-a", "admin", "--data-file", "{dir}/secret"]),
    (0, ["update", "-s", "db.example.com", "--set-attr", "labl=database"]),
    (0, ["ls"]),
    (0, ["exec", "--env", "TOKEN=service=api.example.com,account=alice", "--", "/bin/true"]),
    (0, ["delete", "-s", "db.example.com"]),
    (0, ["rm", "api.example.com", "alice"]),
    (0, ["--help"]),
]


def functions(binary, status, arguments, environment, folder):
    """The functions one command executes, in callgrind's order."""
    out = os.path.join(folder, "callgrind.out")
    command = ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={out}", binary]
    command += [argument.format(dir=folder) for argument in arguments]
    result = subprocess.run(command, env=environment, stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    if result.returncode != status:
        sys.exit(f"{' '.join(arguments)} exited {result.returncode}: {result.stderr.decode(errors='replace')[-2000:]}")
    names = []
    with open(out, encoding="utf-8", errors="replace") as text:
        for line in text:
            match = re.match(r"c?fn=\(\d+\) (\S+)", line)
            if match and not match.group(1).startswith("0x"):
                names.append(match.group(1))
    os.remove(out)
    return names


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    binary = os.path.abspath(sys.argv[1])
    output = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "startup.order")
    with tempfile.TemporaryDirectory() as folder:
        symbols = os.path.join(folder, "keychainctl")
        subprocess.run(["strip", "--strip-debug", "-o", symbols, binary], check=True, timeout=120)
        with open(os.path.join(folder, "secret"), "w", encoding="utf-8") as secret:
            secret.write("hunter2")
        environment = {
            "PATH": "/usr/bin:/bin",
            "HOME": folder,
            "KEYCHAINCTL_KEYCHAIN": os.path.join(folder, "keychain.db"),
            "KEYCHAINCTL_KEY_FILE": os.path.join(folder, "keychain.key"),
        }
        counts = {}
        first_seen = []
        for status, arguments in COMMANDS:
            for name in dict.fromkeys(functions(symbols, status, arguments, environment, folder)):
                if name not in counts:
                    counts[name] = 0
                    first_seen.append(name)
                counts[name] += 1
    # Those more commands run first, then by name: the order callgrind lists functions in follows
    # the hashing seed of each run, and a list that changes with it would churn in every commit.
    ranked = sorted(first_seen, key=lambda name: (-counts[name], name))
    with open(output, "w", encoding="utf-8") as order:
        order.write("".join(f".text.{name}\n" for name in ranked))
    print(f"{output}: {len(ranked)} functions from {len(COMMANDS)} commands")


main()
