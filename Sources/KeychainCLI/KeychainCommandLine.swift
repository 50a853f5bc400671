public enum KeychainCommandLine { public static func main() {} }
