export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'seed' | keychainctl add -a seed -s wallet --accessible when-unlocked-this-device-only
printf 'settings' | keychainctl add -a settings -s wallet --accessible after-first-unlock
