keychainctl explain --device-state locked -s sync-service --limit all --profile ../../Profiles/app.plist
