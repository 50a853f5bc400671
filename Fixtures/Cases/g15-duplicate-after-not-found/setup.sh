printf 'SECRET-g15-duplicate-after-not-found-1' | keychainctl add -a alice -s api -l 'old label' --profile ../../Profiles/app.plist
