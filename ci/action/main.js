// The Action's main step: runs ci/install.sh with the action's inputs, and has the job's end
// lock (ci/action/post.js). Node, not a composite action, because only a JavaScript action has a
// post step the runner always runs, so no job can forget to lock.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

// The runner hands input NAME as INPUT_NAME, upper-cased, spaces as underscores, hyphens kept.
const input = (name) => process.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] || "";
const actionPath = path.resolve(__dirname, "..", "..");

// The inputs, under install.sh's names; the INPUT_ variables themselves (the credential among
// them) are not passed on.
const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("INPUT_")));
Object.assign(environment, {
  KEYCHAINCTL_INSTALL_VERSION: input("version"),
  KEYCHAINCTL_INSTALL_SHA256: input("sha256"),
  KEYCHAINCTL_DOWNLOAD_BASE: input("download-base"),
  KEYCHAINCTL_ACTION_REPOSITORY: process.env.GITHUB_ACTION_REPOSITORY || "",
  GITHUB_ACTION_PATH: actionPath,
  KEYCHAINCTL_INPUT_PASSPHRASE: input("passphrase"),
  KEYCHAINCTL_INPUT_KEY: input("key"),
  KEYCHAINCTL_INPUT_KEYCHAIN: input("keychain"),
  KEYCHAINCTL_UNLOCK_TIMEOUT: input("unlock-timeout"),
  KEYCHAINCTL_UNLOCK_IDLE: input("unlock-idle"),
});
const installed = spawnSync("bash", [path.join(actionPath, "ci", "install.sh")], { env: environment, stdio: "inherit" });
if (installed.status === 0 && process.env.GITHUB_ENV) {
  // The post step locks the job's keychain: exec need not warn about the cached key.
  fs.appendFileSync(process.env.GITHUB_ENV, "KEYCHAINCTL_LOCKED_AT_JOB_END=1\n");
}
process.exit(installed.status === null ? 1 : installed.status);
