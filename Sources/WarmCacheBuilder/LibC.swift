#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif
import WarmCache

// The C library, for the whole target: Glibc on Linux, Musl with the static Linux SDK, Darwin on
// Apple platforms. Foundation re-exports that same module on each of them, so the target's files
// call `open`, `fsync` or `errno` with `import Foundation` alone and never import it themselves.
// What differs between the platforms is written here, once, in this target's part of ``LibC``
// (the package's other calls are in WarmCache's LibC.swift); the import is internal, so nothing
// of the C library enters the target's API through this file.

/// The builder's C calls whose spelling differs between the platforms.
extension LibC {
    /// The modification and status-change times of a file status (Darwin names the fields
    /// `st_mtimespec` and `st_ctimespec`, Glibc and Musl `st_mtim` and `st_ctim`).
    static func times(of status: stat) -> (modified: timespec, changed: timespec) {
        #if canImport(Darwin)
        (status.st_mtimespec, status.st_ctimespec)
        #else
        (status.st_mtim, status.st_ctim)
        #endif
    }

    #if os(Linux)
    /// `syncfs(2)`, which Swift's Glibc module does not import (it needs `_GNU_SOURCE`); Linux only.
    static func syncfs(_ descriptor: Int32) -> Int32 {
        linuxSyncfs(descriptor)
    }
    #endif
}

#if os(Linux)
@_silgen_name("syncfs")
private func linuxSyncfs(_ descriptor: Int32) -> Int32
#endif
