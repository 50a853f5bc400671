keychainctl explain --operation add -a alice -s api -l 'new label' --profile ../../Profiles/app.plist
