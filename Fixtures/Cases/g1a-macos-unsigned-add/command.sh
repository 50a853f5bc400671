keychainctl explain --platform macos --operation add -s com.example.cli -a session --profile ../../Profiles/no-entitlements.plist
