keychainctl explain -s api -a token --profile ../../Profiles/app.plist
