import Foundation

extension NSError {
    /// `NSError()`: an error with an empty domain and code 0, as Apple platforms make one (NSObject's
    /// initializer, inherited there). Linux's Foundation has none, so test code comparing keychain
    /// errors against a plain `NSError()` (SimpleKeychain's suite) would not build: the one
    /// Foundation gap this module fills (docs/LIBRARY.md). Its parameter only keeps it apart from
    /// NSObject's `init()`, which an extension may not override.
    public convenience init(_ nothing: Void = ()) { self.init(domain: "", code: 0, userInfo: nil) }
}
