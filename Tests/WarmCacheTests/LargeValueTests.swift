import Foundation
import Testing
@testable import WarmCache

/// Values past 2^31 at every boundary where a 32-bit `Int` (watchOS on `arm64_32`) would trap
/// or wrap: byte counts, limits and rows read from an index. This machine's `Int` has 64 bits,
/// so each test checks the value goes through in its 64-bit type or its checked form.
@Suite("Values above 2^31")
struct LargeValueTests {
    static let beyond32Bits: Int64 = 3_000_000_000

    @Test("the largest blob an index may list is 4 GiB, and a positive limit where Int has 32 bits")
    func maximumBlobBytes() {
        #expect(IndexValidation.maximumBlobBytes == 1 << 32)
        #expect(Int(clamping: Int64(1) << 32) > 0)
        #expect(Int32(clamping: Int64(1) << 32) == Int32.max, "what the clamp gives on watchOS")
    }

    @Test("SQLite integers past 2^31 are read in 64 bits, or as missing when they do not fit")
    func sqliteIntegers() throws {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false)
        let statement = try connection.statement("SELECT 5000000000 AS big, 9223372036854775807 AS top")
        #expect(try statement.step())
        #expect(statement.int64("big") == 5_000_000_000)
        #expect(statement.strictInt("big") == Int(exactly: Int64(5_000_000_000)))
        #expect(statement.int("top") == Int.max)
    }

    @Test("text and blobs are bound with 64-bit lengths")
    func sixtyFourBitBinds() throws {
        let connection = try SQLiteConnection(path: ":memory:", readOnly: false)
        let statement = try connection.statement("SELECT length(?1) AS text, length(?2) AS blob")
            .bind(.text("ünïcode"), .blob(Data(repeating: 7, count: 70_000)))
        #expect(try statement.step())
        #expect(statement.int("text") == 7 && statement.int("blob") == 70_000)
    }

    @Test("byte counts past 2^31 read as people read them")
    func byteCountText() {
        #expect(ByteCountText.format(Self.beyond32Bits) == "3.0 GB")
        #expect(ByteCountText.format(Int64(1) << 42) == "4.4 TB")
    }

    @Test("a pixel area past 2^31 neither traps nor wraps")
    func pixelArea() {
        #expect(PixelSize(width: 60_000, height: 60_000).area == 3_600_000_000)
    }

    @Test("free space is measured in 64 bits, and a device number of any sign is kept")
    func freeSpace() throws {
        let free = try #require(LibC.freeSpace(at: NSTemporaryDirectory()))
        #expect(free.bytes > 0)
        #expect(LibC.device(of: NSTemporaryDirectory()) != nil)
        #expect(UInt64(truncatingIfNeeded: Int32(-2)) == UInt64.max - 1, "Darwin's st_dev is a signed Int32")
    }
}
