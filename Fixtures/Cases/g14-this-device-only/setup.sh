export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'SECRET-g14-this-device-only-1' | keychainctl add -a seed -s wallet --accessible when-unlocked-this-device-only
printf 'SECRET-g14-this-device-only-2' | keychainctl add -a settings -s wallet --accessible after-first-unlock
