printf 'secret' | keychainctl add -a alice -s api -l 'old label' --profile ../../Profiles/app.plist
