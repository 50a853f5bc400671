keychainctl lint --target app=../../Profiles/wildcard.plist
