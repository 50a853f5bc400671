printf 'session' | keychainctl add -a session -s api.example.com --profile ../../Profiles/app.plist
printf 'cache' | keychainctl add -a widget-cache -s api.example.com --profile ../../Profiles/widget.plist
