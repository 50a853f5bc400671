keychainctl explain -a wallet -s keys --team-change ZZZZZ99999 --profile ../../Profiles/app.plist
