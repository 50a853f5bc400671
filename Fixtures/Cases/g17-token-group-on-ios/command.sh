keychainctl explain -g com.apple.token --class genp --profile ../../Profiles/app.plist
