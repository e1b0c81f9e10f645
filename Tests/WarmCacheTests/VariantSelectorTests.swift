import Testing
@testable import WarmCache

@Suite("Best-fit selection")
struct VariantSelectorTests {
    /// A 4:3 source baked as `inside` 100 pt wide at @1x/@2x/@3x in WebP and JPEG, plus a 48 pt cover avatar.
    static let records: [VariantRecord] = {
        var records: [VariantRecord] = []
        for scale in 1...3 {
            for format in [ImageFormat.webp, .jpeg] {
                records.append(record("card-\(scale)-\(format)", .inside, format,
                                      PixelSize(width: 100 * scale, height: 75 * scale), bytes: 1000 * scale))
            }
        }
        records.append(record("avatar-3", .cover, .png, PixelSize(width: 144, height: 144), processors: "round(24)"))
        return records
    }()

    static func record(_ key: String, _ fit: FitMode.Kind, _ format: ImageFormat, _ size: PixelSize,
                       bytes: Int = 500, processors: String = "-") -> VariantRecord {
        VariantRecord(cacheKey: key, fit: fit, format: format, processors: processors, pixelSize: size,
                      byteCount: bytes, sha256: key, hasAlpha: format == .png)
    }

    func select(_ width: Double, _ height: Double, scale: Double, accepting: [ImageFormat] = [.webp, .jpeg],
                fit: FitMode.Kind? = nil, processors: ProcessorFilter = .unprocessed) -> String? {
        VariantSelector(size: PointSize(width: width, height: height), scale: scale, accepting: accepting,
                        fit: fit, processors: processors).select(from: Self.records)?.cacheKey
    }

    @Test("smallest covering variant per scale", arguments: [
        (100.0, 75.0, 1.0, "card-1-webp"),
        (100.0, 75.0, 2.0, "card-2-webp"),
        (100.0, 75.0, 3.0, "card-3-webp"),
        (50.0, 50.0, 3.0, "card-2-webp"),    // needs 150 px: 200x150 covers (inside: limiting side)
        (101.0, 76.0, 1.0, "card-2-webp"),   // one pixel more than @1x on both sides
        (80.0, 1000.0, 1.0, "card-1-webp"),  // aspect-fit is limited by the width
        (0.0, 100.0, 2.0, "card-3-webp"),    // unconstrained width: needs 200 px tall
    ])
    func smallestCovering(width: Double, height: Double, scale: Double, expected: String) {
        #expect(select(width, height, scale: scale) == expected)
    }

    @Test("falls back to the largest when nothing covers")
    func fallback() {
        #expect(select(1000, 1000, scale: 3) == "card-3-webp")
        #expect(select(1000, 1000, scale: 3, accepting: [.jpeg]) == "card-3-jpeg")
    }

    @Test("honours the caller's format order and filters unaccepted formats")
    func formatPreference() {
        #expect(select(100, 75, scale: 2, accepting: [.jpeg, .webp]) == "card-2-jpeg")
        #expect(select(100, 75, scale: 2, accepting: [.avif]) == nil)
        #expect(select(100, 75, scale: 2, accepting: [.avif, .jpeg]) == "card-2-jpeg")
    }

    @Test("cover variants must cover both sides")
    func coverNeedsBothSides() {
        let selector = VariantSelector(size: PointSize(width: 48, height: 48), scale: 3, accepting: [.png],
                                       fit: nil, processors: .any)
        #expect(selector.covers(Self.records.last!))
        let wider = VariantSelector(size: PointSize(width: 49, height: 40), scale: 3, accepting: [.png],
                                    fit: nil, processors: .any)
        #expect(!wider.covers(Self.records.last!))
    }

    @Test("a plain lookup never answers with a processed variant; .any and named processors do")
    func filters() {
        #expect(select(48, 48, scale: 3, accepting: [.png, .webp]) == "card-2-webp")
        #expect(select(48, 48, scale: 3, accepting: [.png]) == nil)
        #expect(select(48, 48, scale: 3, accepting: [.png, .webp], processors: .any) == "avatar-3")
        #expect(select(48, 48, scale: 3, accepting: [.png, .webp], processors: []) == "card-2-webp")
        #expect(select(48, 48, scale: 3, accepting: [.png, .webp], fit: .inside) == "card-2-webp")
        #expect(select(48, 48, scale: 3, accepting: [.png, .webp], processors: [.roundCorners(radius: 24)])
                == "avatar-3")
    }
}
