keychainctl lint --target widget=Widget.appex-Simulated.xcent --source widget=Widget.entitlements
