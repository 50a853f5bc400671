export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'token-a' | keychainctl add -a alice -s sync-service --accessible after-first-unlock
printf 'token-b' | keychainctl add -a bob -s sync-service
