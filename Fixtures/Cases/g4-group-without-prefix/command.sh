keychainctl explain -g com.example.shared -a token --profile ../../Profiles/app.plist
