keychainctl explain -g SKMME9E2Y8.group.com.example -a token --profile ../../Profiles/app.plist
