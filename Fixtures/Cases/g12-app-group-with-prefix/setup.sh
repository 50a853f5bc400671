printf 'SECRET-g12-app-group-with-prefix-1' | keychainctl add -a token -s api -g group.com.example --profile ../../Profiles/app.plist
