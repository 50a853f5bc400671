import Glibc

/// The program this process runs.
public enum Executable {
    /// The file name of the running executable, as the kernel knows it (`/proc/self/exe`, which
    /// no argument or environment variable can change), else of `argv[0]`; `nil` when neither
    /// gives one.
    public static var name: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let path =
            count > 0
            ? String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments.first ?? ""
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }
}
