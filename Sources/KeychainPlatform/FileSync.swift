import CFileSync

/// Making files durable at once, and whole.
public enum FileSync {
    /// Flushes the whole file system holding `fd` (syncfs): several new files in one call. False
    /// with errno set when it failed.
    public static func fileSystem(of fd: Int32) -> Bool { cfilesync_syncfs(fd) == 0 }

    /// A new file with no name in `folder`, open for writing (mode 0600): until `link` names it, no
    /// other process can open it, and if this one dies the kernel frees it. -1 with errno set
    /// (EOPNOTSUPP or EISDIR: this file system cannot make one).
    public static func openUnnamed(in folder: String) -> Int32 { cfilesync_open_unnamed(folder) }

    /// Names the unnamed file `fd` `path`, never replacing a file there (EEXIST). False with errno set.
    public static func link(_ fd: Int32, to path: String) -> Bool { cfilesync_link_unnamed(fd, path) == 0 }
}
