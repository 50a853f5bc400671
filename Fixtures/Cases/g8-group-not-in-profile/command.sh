keychainctl lint --target fork=Fork.entitlements --provisioning fork=Fork.mobileprovision.plist --now 2026-11-24T00:00:00Z
