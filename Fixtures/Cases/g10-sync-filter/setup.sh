export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'SECRET-g10-sync-filter-1' | keychainctl add -a token -s api --sync yes
printf 'SECRET-g10-sync-filter-2' | keychainctl add -a refresh -s api
