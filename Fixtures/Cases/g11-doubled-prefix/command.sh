keychainctl lint --target app=../../Profiles/app.plist --code-group SKMME9E2Y8.SKMME9E2Y8.com.example.shared
