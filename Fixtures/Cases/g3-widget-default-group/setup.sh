printf 'SECRET-g3-widget-default-group-1' | keychainctl add -a session -s api.example.com --profile ../../Profiles/app.plist
printf 'SECRET-g3-widget-default-group-2' | keychainctl add -a widget-cache -s api.example.com --profile ../../Profiles/widget.plist
