printf 'SECRET-g9-service-is-bundle-id-1' | keychainctl add -a token -s com.example.app -g SKMME9E2Y8.com.example.shared --profile ../../Profiles/app.plist
