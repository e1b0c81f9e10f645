import Foundation

// The C calls whose spelling or meaning differs between the platforms, written once for the
// package, with the Darwin and Linux branches side by side. Each target that needs more adds an
// `extension LibC` in a file of this name; scripts/check-portability keeps such calls in them.

/// The C library calls that differ between Apple platforms and Linux.
package enum LibC {
    /// Flushes a file's data to the storage medium itself, for what must survive a power loss (a
    /// bundle's index, its statement). On Apple platforms `fsync` only hands the data to the
    /// drive, whose cache may lose it; `F_FULLFSYNC` empties that cache too, with everything
    /// flushed before it. Where a file system does not support it, `fsync` is the best there is.
    /// Returns `false` when the file could not be flushed (`errno` says why).
    package static func flushToStorage(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        fcntl(descriptor, F_FULLFSYNC) == 0 || fsync(descriptor) == 0
        #else
        fsync(descriptor) == 0
        #endif
    }

    /// The free bytes and inodes an unprivileged writer has on the file system of `path`
    /// (`statvfs(2)`), in 64 bits on every platform: Darwin counts inodes in 32 bits, and a
    /// 32-bit `Int` (watchOS) holds neither. `inodes` is `nil` where the file system counts none.
    package static func freeSpace(at path: String) -> (bytes: Int64, inodes: Int64?)? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let bytes = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        return (bytes.overflow ? Int64.max : Int64(clamping: bytes.partialValue),
                info.f_files == 0 ? nil : Int64(clamping: UInt64(info.f_favail)))
    }

    /// The device a file is on, to tell whether two paths share a file system (`st_dev` is a
    /// signed 32-bit number on Darwin, unsigned 64 on Linux).
    package static func device(of path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt64(truncatingIfNeeded: status.st_dev)
    }

    /// The system's version (major, minor, patch), in the numbering of the format table's row for
    /// the platform the code runs on (``AppPlatform/current``).
    ///
    /// An iPhone or iPad app running on a Mac, and a Mac Catalyst app, are iOS apps on a Mac whose
    /// reported version may be the Mac's (14 for macOS Sonoma, which decodes as iOS 17 does). There
    /// the iOS version is read through availability checks, which the system answers in iOS's
    /// numbering, at each version where the iOS row of ``FormatSupport`` changes.
    package static var systemVersion: (major: Int, minor: Int, patch: Int) {
        #if os(iOS)
        if isiOSAppOnMac || isMacCatalyst { return (iOSMajorVersionByAvailability, 0, 0) }
        #endif
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return (version.majorVersion, version.minorVersion, version.patchVersion)
    }

    /// The iOS major versions at which the format table's iOS row changes, newest first: what
    /// an iOS app on a Mac can tell by availability checks (a test holds them to the table).
    package static let iOSAvailabilitySteps = [17, 16, 14, 11]

    #if os(iOS)
    /// The iOS version an iOS app on a Mac runs as, to the precision of ``iOSAvailabilitySteps``.
    private static var iOSMajorVersionByAvailability: Int {
        if #available(iOS 17, *) { return 17 }
        if #available(iOS 16, *) { return 16 }
        if #available(iOS 14, *) { return 14 }
        return 11
    }

    private static var isMacCatalyst: Bool {
        #if targetEnvironment(macCatalyst)
        true
        #else
        false
        #endif
    }
    #endif

    /// Whether this is an iPhone or iPad app running on a Mac (Apple silicon). Never on Linux.
    package static var isiOSAppOnMac: Bool {
        #if canImport(Darwin)
        if #available(iOS 14, tvOS 14, watchOS 7, macOS 11, *) { return ProcessInfo.processInfo.isiOSAppOnMac }
        return false
        #else
        return false
        #endif
    }

    /// Calls `handler` when the system runs short of memory (`true` when critical), until it is
    /// released. A dispatch memory-pressure source on Apple platforms, where the system asks apps
    /// to give memory back; nothing elsewhere.
    package final class MemoryPressureObserver: @unchecked Sendable {
        #if canImport(Darwin)
        private let source: DispatchSourceMemoryPressure
        private let handler: @Sendable (_ critical: Bool) -> Void

        package init(_ handler: @escaping @Sendable (_ critical: Bool) -> Void) {
            self.handler = handler
            source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical],
                                                             queue: .global(qos: .utility))
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.handler(self.source.data.contains(.critical))
            }
            source.activate()
        }

        deinit { source.cancel() }
        #else
        package init(_ handler: @escaping @Sendable (_ critical: Bool) -> Void) {}
        #endif
    }
}
