keychainctl lint --target app=App-Debug.xcent --source app=App.entitlements
