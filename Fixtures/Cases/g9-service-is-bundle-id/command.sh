keychainctl explain -s com.example.app.share -a token --profile ../../Profiles/share-extension.plist
