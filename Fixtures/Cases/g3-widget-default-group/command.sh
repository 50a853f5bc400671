keychainctl matrix -s api.example.com --profile app=../../Profiles/app.plist --profile widget=../../Profiles/widget.plist
