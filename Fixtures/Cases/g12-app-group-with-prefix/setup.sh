printf 'token' | keychainctl add -a token -s api -g group.com.example --profile ../../Profiles/app.plist
