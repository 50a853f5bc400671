import Foundation
internal import KeychainCore

// SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete with Apple's signatures, over
// the same engine as `keychainctl add`, `find`, `update` and `delete`: the same checks in the same
// order, the same file.

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Adds the item `attributes` describes; with return keys, `result` receives it as
/// `SecItemCopyMatching` would.
@discardableResult
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    var parsed: SecItemDictionary
    do { parsed = try SecItemCall.parse(attributes, forQuery: false) } catch { return SecItemCall.refuse(error) }
    if let identity = parsed.identity { return IdentityCall.run(.add, attributes, identity: identity, result: result) }
    parsed.inferLabel()
    var request = parsed.request
    request.accessControl = parsed.accessControl?.request
    let secret = parsed.secret
    return SecItemEngine.shared.perform(ui: parsed.ui, context: parsed.context) { keychain, caller in
        let added = try keychain.add(request, secret: secret, caller: caller)
        guard let result else { return }
        let found = Keychain.FoundItem(item: added.item, secret: request.returns?.value?.contains(.data) == true ? secret : nil)
        result.pointee = SecItemResult.shape([found], returns: parsed.returns, limit: .one)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Finds what `query` matches; `result` receives it shaped as its return keys and limit ask.
@discardableResult
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    let parsed: SecItemDictionary
    do { parsed = try SecItemCall.parse(query) } catch { return SecItemCall.refuse(error) }
    if let identity = parsed.identity { return IdentityCall.run(.copyMatching, query, identity: identity, result: result) }
    var request = parsed.request
    // Without return keys Apple returns nothing, but the match is still made (and its status).
    if !parsed.asksForReturns { request.returns = .value([]) }
    // SecItemCopyMatching's default limit is one (SecItem.h).
    if request.limit == nil { request.limit = .value(.one) }
    return SecItemEngine.shared.perform(ui: parsed.ui, context: parsed.context) { keychain, caller in
        let found = try keychain.find(request, caller: caller)
        result?.pointee = SecItemResult.shape(found.items, returns: parsed.returns, limit: found.query.limit)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Changes every item `query` matches as `attributesToUpdate` says.
@discardableResult
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    let parsed: SecItemDictionary
    let changes: SecItemDictionary
    do {
        parsed = try SecItemCall.parse(query)
        changes = try SecItemDictionary(attributesToUpdate, forQuery: false)
    } catch { return SecItemCall.refuse(error) }
    if let identity = parsed.identity { return IdentityCall.update(query, identity: identity, attributesToUpdate) }
    guard changes.identity == nil else { return SecItemCall.refuse(.param("an identity names items; it is not an attribute to update")) }
    guard changes.request.itemClass == nil else { return SecItemCall.refuse(.param("kSecClass cannot be changed by an update")) }
    let change = ChangeRequest(
        attributes: changes.request.attributes, sync: changes.request.sync, secret: changes.secret,
        accessControl: changes.accessControl?.request)
    return SecItemEngine.shared.perform(ui: parsed.ui, context: parsed.context) { keychain, caller in
        _ = try keychain.update(parsed.request, changes: change, caller: caller)
    }
}

// swift-format-ignore: AlwaysUseLowerCamelCase
/// Deletes every item `query` matches.
@discardableResult
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    let parsed: SecItemDictionary
    do { parsed = try SecItemCall.parse(query) } catch { return SecItemCall.refuse(error) }
    if let identity = parsed.identity { return IdentityCall.run(.delete, query, identity: identity, result: nil) }
    return SecItemEngine.shared.perform(ui: parsed.ui, context: parsed.context) { keychain, caller in
        _ = try keychain.delete(parsed.request, caller: caller)
    }
}

enum SecItemCall {
    /// A query or attributes dictionary, which must name its class (`SecItemServer.c`: "query
    /// missing class name") unless it names an identity, whose call is made on its two halves.
    static func parse(_ dictionary: CFDictionary, forQuery: Bool = true) throws(SecItemRefusal) -> SecItemDictionary {
        let parsed = try SecItemDictionary(dictionary, forQuery: forQuery)
        guard parsed.request.itemClass != nil || parsed.identity != nil else { throw .param("query missing class name") }
        return parsed
    }

    static func refuse(_ refusal: SecItemRefusal) -> OSStatus {
        SecItemEngine.shared.recordRefusal(refusal.message)
        return refusal.status
    }
}

/// kSecMatchHostOrSubdomainOfHost (iOS 18, macOS 15; newer than the SecItem.h the constants were
/// generated from): a query of internet passwords finds those whose server is this host or a
/// subdomain of it (`api.example.com` for `example.com`, not `badexample.com`), without regard to
/// case; for another class it is errSecUnimplemented, as on Apple platforms.
nonisolated(unsafe) public let kSecMatchHostOrSubdomainOfHost: CFString = "m_HostOrSubdomainOfHost"
