export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'synced' | keychainctl add -a token -s api --sync yes
printf 'local' | keychainctl add -a refresh -s api
