import CFileSync

/// Making files durable at once.
public enum FileSync {
    /// Flushes the whole file system holding `fd` (syncfs): several new files in one call. False
    /// with errno set when it failed.
    public static func fileSystem(of fd: Int32) -> Bool { cfilesync_syncfs(fd) == 0 }
}
