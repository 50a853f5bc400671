// The Action's post step, which the runner runs when the job ends, whatever happened before:
// removes the key the main step cached (and any key file it wrote). It opens the binary the main
// step installed once, hashes what it read through that descriptor, and runs that very file (the
// descriptor, as /proc/self/fd/3) only when its SHA-256 is the one recorded then, with an
// environment of its own: a PATH entry, BASH_ENV, or a binary replaced before or after the hash,
// planted by a step's code, cannot run anything here. What a step set through $GITHUB_ENV for this
// node process itself (LD_PRELOAD, NODE_OPTIONS) ran before this file could look: it is named as
// an error, and the key is locked all the same.
"use strict";
const { spawnSync } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");

const bin = process.env.STATE_bin || "";
const keychain = process.env.STATE_keychain || "";
const keyFile = process.env.STATE_key_file || "";
let failed = false;
const planted = Object.keys(process.env).filter((name) => /^LD_/.test(name) || /^NODE_(OPTIONS|PATH|REPL_EXTERNAL_MODULE)$/.test(name));
if (planted.length > 0) {
  console.log(`::error::keychainctl: the post step runs with ${planted.join(", ")} set (by an earlier step, through $GITHUB_ENV?): code that step chose may have run in it. The key is locked all the same; look at the job's earlier steps.`);
  failed = true;
}
if (keyFile) {
  try {
    fs.rmSync(keyFile, { force: true });
  } catch (error) {
    console.log(`::error::keychainctl: cannot remove the key file ${keyFile}: ${error.message}`);
    failed = true;
  }
}
if (!bin) {
  console.log("keychainctl: the install step did not finish; nothing to lock.");
} else {
  let digest = "";
  let fd = -1;
  try {
    fd = fs.openSync(bin, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    digest = crypto.createHash("sha256").update(fs.readFileSync(fd)).digest("hex");
  } catch (error) {
    digest = `unreadable (${error.message})`;
  }
  if (digest !== process.env.STATE_sha256) {
    console.log(`::error::keychainctl: ${bin} is not the binary this job installed (its SHA-256 changed); it was not run, and the key it cached stays until its timeout.`);
    failed = true;
  } else {
    const environment = { PATH: "/usr/bin:/bin", KEYCHAINCTL_KEYCHAIN: keychain };
    if (process.env.HOME) environment.HOME = process.env.HOME;
    // The file hashed, not whatever the path names now: the descriptor, as the child's fd 3.
    const locked = spawnSync("/proc/self/fd/3", ["lock"], {
      env: environment,
      stdio: ["inherit", "inherit", "inherit", fd],
      argv0: "keychainctl",
    });
    if (locked.status !== 0) failed = true;
  }
}
process.exit(failed ? 1 : 0);
