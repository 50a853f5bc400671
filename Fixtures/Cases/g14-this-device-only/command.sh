keychainctl explain -s wallet --limit all --profile ../../Profiles/app.plist
