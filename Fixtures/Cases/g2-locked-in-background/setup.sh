export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'SECRET-g2-locked-in-background-1' | keychainctl add -a alice -s sync-service --accessible after-first-unlock
printf 'SECRET-g2-locked-in-background-2' | keychainctl add -a bob -s sync-service
