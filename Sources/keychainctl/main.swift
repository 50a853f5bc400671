import KeychainCLI
KeychainCommandLine.main()
