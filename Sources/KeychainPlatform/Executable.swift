import Glibc

/// The program this process runs.
public enum Executable {
    /// The file name of the running executable, as the kernel knows it (`/proc/self/exe`, which
    /// no argument or environment variable can change), else of `argv[0]`; `nil` when neither
    /// gives one.
    public static var name: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return name(ofPath: CommandLine.arguments.first ?? "", linkedByKernel: false) }
        return name(ofPath: String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self), linkedByKernel: true)
    }

    /// The file name in `path`. The kernel's link to an executable replaced while it runs (a
    /// package upgrade) ends in ` (deleted)`, which is not part of the name.
    public static func name(ofPath path: String, linkedByKernel: Bool) -> String? {
        let suffix = " (deleted)"
        let file = linkedByKernel && path.hasSuffix(suffix) ? String(path.dropLast(suffix.count)) : path
        let name = file.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }
}
