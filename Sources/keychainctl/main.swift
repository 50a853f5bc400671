import KeychainCLI

KeychainCommandLine.main()
