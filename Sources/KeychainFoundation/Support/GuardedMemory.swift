import CSodium
import Synchronization

/// The memory `SecretBytes` lives in: `sodium_malloc` regions (locked into RAM, guard pages on
/// both sides, never in a core dump since the process is not dumpable), zeroed when released.
///
/// `sodium_malloc` maps three or four pages and makes several system calls per allocation, and a
/// process may hold only about 65,000 mappings: one allocation per key and per secret made a
/// migration of 10,000 items spend a quarter of its time in `mmap`/`mprotect`/`mlock`, and a find
/// returning 17,000 secrets die in `sodium_malloc`. So blocks of up to `largestPooled` bytes are
/// slots of shared guarded slabs, by power-of-two size class; larger ones get their own region.
/// A slot is zeroed when released and reused. Slots of one slab are not separated by guard pages:
/// nothing in keychainctl writes a secret except through a length it checked.
package enum GuardedMemory {
    /// One allocation: where it starts and how many bytes it may use.
    package struct Block {
        package let base: UnsafeMutableRawPointer
        package let capacity: Int
    }

    package static let smallestPooled = 16
    package static let largestPooled = 2048
    /// Each slab is one guarded region this size (one page), cut into slots of one size class:
    /// a find touches three or four classes, and each new slab is filled twice (by libsodium's
    /// canary fill, then zeroed).
    package static let slabBytes = 4096

    /// One size class's slots: released ones to reuse, then the untouched rest of its newest slab.
    private struct Slots {
        var released: [UInt] = []
        var next: UInt = 0
        var end: UInt = 0
    }

    /// Slots by size class (index 0 holds `smallestPooled`-byte slots), as addresses.
    private static let slots = Mutex([Slots](repeating: Slots(), count: sizeClassCount))
    private static var sizeClassCount: Int { (largestPooled / smallestPooled).trailingZeroBitCount + 1 }

    /// A zeroed block of at least `count` bytes (at least one).
    package static func allocate(_ count: Int) -> Block {
        precondition(Sodium.ready)
        guard count <= largestPooled else { return Block(base: region(count), capacity: count) }
        let sizeClass = sizeClass(of: count)
        let slotBytes = smallestPooled << sizeClass
        let address = slots.withLock { classes -> UInt in
            if let reused = classes[sizeClass].released.popLast() { return reused }
            if classes[sizeClass].next == classes[sizeClass].end {
                let slab = UInt(bitPattern: region(slabBytes))
                classes[sizeClass].next = slab
                classes[sizeClass].end = slab + UInt(slabBytes)
            }
            defer { classes[sizeClass].next += UInt(slotBytes) }
            return classes[sizeClass].next
        }
        return Block(base: UnsafeMutableRawPointer(bitPattern: address)!, capacity: slotBytes)
    }

    /// Zeroes `block` and gives it back.
    package static func release(_ block: Block) {
        guard block.capacity <= largestPooled else {
            sodium_free(block.base)  // zeroes, checks the canary, unmaps
            return
        }
        sodium_memzero(block.base, block.capacity)
        let sizeClass = sizeClass(of: block.capacity)
        slots.withLock { $0[sizeClass].released.append(UInt(bitPattern: block.base)) }
    }

    /// The index of the smallest size class holding `count` bytes.
    private static func sizeClass(of count: Int) -> Int {
        let slots = max(count, smallestPooled)
        return (Int.bitWidth - (slots - 1).leadingZeroBitCount) - smallestPooled.trailingZeroBitCount
    }

    /// A zeroed guarded region of `count` bytes.
    private static func region(_ count: Int) -> UnsafeMutableRawPointer {
        guard let memory = sodium_malloc(max(count, 1)) else {
            fatalError("out of guarded memory (sodium_malloc of \(count) bytes failed)")
        }
        sodium_memzero(memory, max(count, 1))
        return memory
    }
}
