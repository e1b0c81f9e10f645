import Foundation
import Testing
@testable import WarmCache

/// The format table's iOS row, as iOS apps read it wherever they run.
@Suite struct FormatSupportTests {
    /// An iPhone app on a Mac (and a Mac Catalyst app) reads its iOS version through availability
    /// checks, one per version where the iOS row changes (LibC.systemVersion): a new version in the
    /// row needs its check there too.
    @Test func theIOSRowChangesOnlyWhereAvailabilityIsChecked() {
        let steps = Set(FormatSupport.firstDecodingVersions.compactMap { $0.since[.ios] })
        #expect(steps.isSubset(of: Set(LibC.iOSAvailabilitySteps.map { OSVersion(major: $0) })), "\(steps)")
    }

    /// The iOS row at each of those versions: what a lookup accepts by default there.
    @Test func iOSAppsDecodeByTheIOSRow() {
        #expect(FormatSupport.decodedFormats(on: .ios, version: "15") == [.heic, .webp, .jpeg, .png, .gif])
        #expect(FormatSupport.decodedFormats(on: .ios, version: "16") == [.avif, .heic, .webp, .jpeg, .png, .gif])
        #expect(FormatSupport.decodedFormats(on: .ios, version: "17").first == .avif)
        #expect(FormatSupport.decodedFormats(on: .ios, version: "17").contains(.jxl))
    }

    /// Off Apple platforms the system decodes nothing for apps: lookups accept every format.
    @Test func linuxAcceptsEveryFormat() {
        #if os(Linux)
        #expect(AppPlatform.current == nil)
        #expect(Set(ImageFormat.decodedHere) == Set(ImageFormat.allCases))
        #endif
    }
}
