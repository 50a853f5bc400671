printf 'SECRET-g4-group-without-prefix-1' | keychainctl add -a token -s api -g SKMME9E2Y8.com.example.shared --profile ../../Profiles/app.plist
