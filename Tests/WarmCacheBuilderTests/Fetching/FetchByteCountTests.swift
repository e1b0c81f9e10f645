import Foundation
import Testing
import WarmCache
@testable import WarmCacheBuilder

/// Byte counts in fetch messages are written as everywhere else: decimal units, by one formatter.
@Suite struct FetchByteCountTests {
    @Test func limitsAndSizesUseDecimalUnits() throws {
        let url = try #require(URL(string: "https://cdn.example.com/big.jpg"))
        // `max_bytes: 100KB` is 100,000 bytes; a 112,525-byte file is 112.5 KB, as `inspect` writes it.
        let declared = FetchError(url: url, kind: .tooLarge(limit: 100_000, declared: 112_525), attempts: 1)
        #expect(declared.summary.hasPrefix("the image is 112.5 KB, over the 100.0 KB limit"), "\(declared.summary)")
        let streamed = FetchError(url: url, kind: .tooLarge(limit: 50_000_000, declared: nil), attempts: 1)
        #expect(streamed.summary.hasPrefix("the image is larger than the 50.0 MB limit"), "\(streamed.summary)")
        #expect(ByteCountText.format(112_525) == "112.5 KB")
        #expect(ByteCountText.format(999) == "999 B")
    }
}
