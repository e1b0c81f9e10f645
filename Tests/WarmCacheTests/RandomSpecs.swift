@testable import WarmCache

/// A small deterministic generator (SplitMix64) so property tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random sources and specs drawn from small pools, so that near-collisions are frequent.
enum RandomSpecs {
    static let alphabet: [Character] = Array("ab|%@x_-,()1 é/?=&#")

    static func source<G: RandomNumberGenerator>(using generator: inout G) -> SourceIdentifier {
        let length = Int.random(in: 0...6, using: &generator)
        let tail = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
        return SourceIdentifier(verbatim: "https://h.test/" + tail)
    }

    static func spec<G: RandomNumberGenerator>(using generator: inout G) -> VariantSpec {
        func maybe(_ value: Int) -> Int? { Bool.random(using: &generator) ? value : nil }
        let fits: [FitMode] = [.inside, .fill, .cover(.centre), .cover(.attention), .contain(background: .white),
                               .contain(background: .transparent)]
        let processors: [Processor] = [.grayscale, .roundCorners(radius: 4), .blur(sigma: 0.5),
                                       .flatten(background: .black)]
        var options = EncodingOptions()
        if Bool.random(using: &generator) { options.effort = Int.random(in: 0...2, using: &generator) }
        if Bool.random(using: &generator) { options.lossless = Bool.random(using: &generator) }
        return VariantSpec(
            width: maybe(Int.random(in: 1...3, using: &generator)),
            height: maybe(Int.random(in: 1...3, using: &generator)),
            scale: Int.random(in: 1...3, using: &generator),
            fit: fits.randomElement(using: &generator)!,
            allowUpscale: Bool.random(using: &generator),
            format: ImageFormat.allCases.randomElement(using: &generator)!,
            quality: maybe(Int.random(in: 79...80, using: &generator)),
            options: options,
            processors: (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                processors.randomElement(using: &generator)!
            })
    }
}
