import Testing
@testable import WarmCache

@Suite("Canonical variant keys")
struct VariantKeyTests {
    let source = SourceIdentifier("https://cdn.example.com/a.jpg")

    @Test("renders the documented grammar", arguments: [
        (VariantSpec(width: 64, height: 64, scale: 2, fit: .cover(.attention), format: .webp, quality: 80,
                     processors: [.roundCorners(radius: 12)]),
         "https://cdn.example.com/a.jpg|64x64|@2x|cover-attention|webp-q80|round(12)"),
        (VariantSpec(width: 320, height: nil, scale: 1, format: .jpeg),
         "https://cdn.example.com/a.jpg|320x_|@1x|inside|jpeg|-"),
        (VariantSpec(width: nil, height: 200, scale: 3, fit: .fill, allowUpscale: true, format: .png),
         "https://cdn.example.com/a.jpg|_x200|@3x|fill+up|png|-"),
        (VariantSpec(width: 10, height: 20, fit: .contain(background: .transparent), format: .avif, quality: 60,
                     options: EncodingOptions(lossless: false, effort: 2),
                     processors: [.blur(sigma: 1.5), .grayscale, .flatten(background: .white)]),
         "https://cdn.example.com/a.jpg|10x20|@1x|contain-00000000|avif-q60-lossy-e2|blur(1.5),grayscale,flatten(ffffff)"),
    ])
    func renders(spec: VariantSpec, expected: String) {
        let key = VariantKey(source: source, spec: spec)
        #expect(key.rawValue == expected)
        #expect(VariantKey(parsing: expected) == key)
    }

    @Test("escapes separators inside the source so keys stay unambiguous")
    func escapesSource() {
        let tricky = SourceIdentifier(verbatim: "https://x.test/a|64x64|@2x|inside|png|-?q=%7C b")
        let key = VariantKey(source: tricky, spec: VariantSpec(width: 1, height: 1, format: .png))
        #expect(key.rawValue.hasPrefix("https://x.test/a%7C64x64%7C@2x%7Cinside%7Cpng%7C-?q=%257C%20b|"))
        #expect(key.rawValue.split(separator: "|", omittingEmptySubsequences: false).count == 6)
        #expect(VariantKey(parsing: key.rawValue)?.source == tricky)
    }

    @Test("rejects strings the renderer would never produce", arguments: [
        "", "a|b", "x|64x64|@2x|inside|png", "x|64x64|@2x|inside|png|-|extra", "x|0x64|@2x|inside|png|-",
        "x|064x64|@2x|inside|png|-", "x|64x64|@0x|inside|png|-", "x|64x64|2x|inside|png|-",
        "x|64x64|@2x|outside|png|-", "x|64x64|@2x|inside|bmp|-", "x|64x64|@2x|inside|png-q080|-",
        "x|64x64|@2x|inside|png-e2-lossless|-", "x|64x64|@2x|inside|png|round(12.0)",
        "x|64x64|@2x|inside|png|", "x%7c|64x64|@2x|inside|png|-", "x%41|64x64|@2x|inside|png|-",
        "x|64x64|@2x|cover-middle|png|-", "x|64x64|@2x|contain-FFFFFF|png|-",
    ])
    func rejects(text: String) {
        #expect(VariantKey(parsing: text) == nil)
    }

    @Test("different (source, spec) pairs never share a key: 20,000 random pairs")
    func uniqueness() {
        var generator = SeededGenerator(seed: 0x5eed)
        var seen: [String: VariantKey] = [:]
        for _ in 0..<20_000 {
            let key = VariantKey(source: RandomSpecs.source(using: &generator), spec: RandomSpecs.spec(using: &generator))
            if let earlier = seen[key.rawValue] {
                #expect(earlier.source == key.source && earlier.spec == key.spec, "collision on \(key.rawValue)")
            }
            seen[key.rawValue] = key
            #expect(VariantKey(parsing: key.rawValue) == key, "does not round-trip: \(key.rawValue)")
        }
        #expect(seen.count > 15_000)
    }

    @Test("keys differ in every field that changes output bytes")
    func everyFieldCounts() {
        let base = VariantSpec(width: 100, height: 100, scale: 2, fit: .cover(.centre), format: .webp, quality: 80)
        var variations: [VariantSpec] = []
        var spec = base; spec.width = 101; variations.append(spec)
        spec = base; spec.height = nil; variations.append(spec)
        spec = base; spec.scale = 3; variations.append(spec)
        spec = base; spec.fit = .cover(.north); variations.append(spec)
        spec = base; spec.fit = .inside; variations.append(spec)
        spec = base; spec.allowUpscale = true; variations.append(spec)
        spec = base; spec.format = .avif; variations.append(spec)
        spec = base; spec.quality = nil; variations.append(spec)
        spec = base; spec.options.effort = 4; variations.append(spec)
        spec = base; spec.options.keepICCProfile = true; variations.append(spec)
        spec = base; spec.processors = [.grayscale]; variations.append(spec)
        spec = base; spec.processors = [.grayscale, .blur(sigma: 2)]; variations.append(spec)
        spec = base; spec.processors = [.blur(sigma: 2), .grayscale]; variations.append(spec)
        let keys = Set(([base] + variations).map { VariantKey(source: source, spec: $0).rawValue })
        #expect(keys.count == variations.count + 1)
    }
}
