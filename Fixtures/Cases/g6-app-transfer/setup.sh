export KEYCHAINCTL_PROFILE=../../Profiles/app.plist
printf 'SECRET-g6-app-transfer-1' | keychainctl add -a wallet -s keys --accessible when-unlocked-this-device-only
printf 'SECRET-g6-app-transfer-2' | keychainctl add -a prefs -s keys -g group.com.example
