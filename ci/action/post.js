// The Action's post step, which the runner runs when the job ends, whatever happened before:
// removes the key the main step cached (and any key file it wrote). It runs the binary the main
// step installed, by its path, only while its SHA-256 is still the one recorded then, with an
// environment of its own: a PATH entry, BASH_ENV or a replaced binary planted by a step's code
// cannot run anything here.
"use strict";
const { spawnSync } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");

const bin = process.env.STATE_bin || "";
const keychain = process.env.STATE_keychain || "";
const keyFile = process.env.STATE_key_file || "";
let failed = false;
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
  try {
    digest = crypto.createHash("sha256").update(fs.readFileSync(bin)).digest("hex");
  } catch (error) {
    digest = `unreadable (${error.message})`;
  }
  if (digest !== process.env.STATE_sha256) {
    console.log(`::error::keychainctl: ${bin} is not the binary this job installed (its SHA-256 changed); it was not run, and the key it cached stays until its timeout.`);
    failed = true;
  } else {
    const environment = { PATH: "/usr/bin:/bin", KEYCHAINCTL_KEYCHAIN: keychain };
    if (process.env.HOME) environment.HOME = process.env.HOME;
    const locked = spawnSync(bin, ["lock"], { env: environment, stdio: "inherit" });
    if (locked.status !== 0) failed = true;
  }
}
process.exit(failed ? 1 : 0);
