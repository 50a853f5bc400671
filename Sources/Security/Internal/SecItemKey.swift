import Foundation

/// The dictionary keys and values the SecItem functions act on, as Swift strings: the generated
/// constants' own values (SecItem+Constants.swift), converted once, so no key is written twice.
enum SecItemKey {
    static let itemClass = String(kSecClass)
    static let matchLimit = String(kSecMatchLimit)
    static let matchLimitOne = String(kSecMatchLimitOne)
    static let matchLimitAll = String(kSecMatchLimitAll)
    static let returnData = String(kSecReturnData)
    static let returnAttributes = String(kSecReturnAttributes)
    static let returnPersistentRef = String(kSecReturnPersistentRef)
    static let returnRef = String(kSecReturnRef)
    static let valueData = String(kSecValueData)
    static let valueRef = String(kSecValueRef)
    static let valuePersistentRef = String(kSecValuePersistentRef)
    static let synchronizableAny = String(kSecAttrSynchronizableAny)
    static let authenticationUI = String(kSecUseAuthenticationUI)
    static let authenticationUIAllow = String(kSecUseAuthenticationUIAllow)
    static let authenticationUIFail = String(kSecUseAuthenticationUIFail)
    static let authenticationUISkip = String(kSecUseAuthenticationUISkip)
    static let noAuthenticationUI = String(kSecUseNoAuthenticationUI)
    static let hostOrSubdomainOfHost = String(kSecMatchHostOrSubdomainOfHost)
    static let dataProtectionKeychain = String(kSecUseDataProtectionKeychain)
    static let operationPrompt = String(kSecUseOperationPrompt)
    static let persistentReference = String(kSecAttrPersistentReference)
    static let authenticationContext = String(kSecUseAuthenticationContext)
}
