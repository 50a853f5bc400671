internal import CoreFoundation
import Foundation

extension SecItemDictionary {
    /// What stands in for a collection value (an array, dictionary or set): no SecItem key this
    /// library reads takes one, so every reader refuses it (errSecParam), and its elements are
    /// never read. The one reader that takes a dictionary (a key generation's
    /// kSecPrivateKeyAttrs) reads it as a dictionary of its own, through `object`: Foundation's
    /// lookup would convert it, all the way down.
    struct Collection {
        let object: AnyObject
    }

    /// The dictionary's keys and values, each value read as a Swift value but a collection.
    /// Foundation turns a stored array or dictionary into a Swift one element by element, all the
    /// way down, and compares keys element by element too, so a collection that holds itself, or
    /// one nested deeper than the stack, would never come back. The keys and values are therefore
    /// taken from the storage as they are (through CoreFoundation, which does not convert them): a
    /// key that is not a string is refused before any lookup, and a collection value stands in as
    /// `Collection`.
    static func entries(_ dictionary: NSDictionary) throws(SecItemRefusal) -> [(key: String, value: Any)] {
        let stored = unsafeBitCast(dictionary, to: CoreFoundation.CFDictionary.self)
        let count = CFDictionaryGetCount(stored)
        guard count > 0 else { return [] }
        var keys = [UnsafeRawPointer?](repeating: nil, count: count)
        var values = [UnsafeRawPointer?](repeating: nil, count: count)
        CFDictionaryGetKeysAndValues(stored, &keys, &values)
        let objects = zip(keys, values).compactMap { key, value -> (key: AnyObject, value: AnyObject)? in
            guard let key, let value else { return nil }
            return (Unmanaged.fromOpaque(key).takeUnretainedValue(), Unmanaged.fromOpaque(value).takeUnretainedValue())
        }
        guard objects.allSatisfy({ $0.key is NSString }) else { throw .param("a key that is not a string") }
        var entries: [(key: String, value: Any)] = []
        entries.reserveCapacity(count)
        for (key, value) in objects {
            if value is NSArray || value is NSDictionary || value is NSSet || value is NSOrderedSet {
                entries.append((String(key as! NSString), Collection(object: value)))
                continue
            }
            // Foundation's lookup only unboxes a Swift value it had to box; strings, numbers, data
            // and dates are already what it would return, and looking each up again by its key
            // cost a SecItemCopyMatching a tenth of its instructions.
            let plain = value is NSString || value is NSNumber || value is NSData || value is NSDate || value is NSNull
            entries.append((String(key as! NSString), plain ? value : dictionary.object(forKey: key) ?? NSNull()))
        }
        return entries
    }

    /// A dictionary of `entries` (as `entries(_:)` read them) to change and pass on: the
    /// client-side calls Apple makes on a caller's dictionary (an identity's halves, a key's
    /// storage, a PKCS#12 file's items) are made on such a copy.
    static func mutableCopy(of entries: [(key: String, value: Any)]) -> NSMutableDictionary {
        let copy = NSMutableDictionary()
        for (key, value) in entries { copy[key] = value }
        return copy
    }
}
