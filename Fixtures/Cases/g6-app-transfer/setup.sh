export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'seed' | keychainctl add -a wallet -s keys --accessible when-unlocked-this-device-only
printf 'shared' | keychainctl add -a prefs -s keys -g group.com.example
