import WarmCache

/// What each ``SearchSpeed`` level changes in a quality target's search (measured in
/// `docs/performance.md`, "Search speeds").
///
/// | | AVIF (libaom) | larger variants try | a search from the probe stops |
/// |---|---|---|---|
/// | `fast` | speed 9 | the probe's smallest format | at the first pass (2 encodes at most) |
/// | `balanced` | speed 6, blocks of 16 px and up | formats within 10 % of it | within 1.5 points (3 at most) |
/// | `smallest` | speed 5, every partition but four-way splits | every candidate | within 2 points (7 at most) |
extension SearchSpeed {
    /// The effort a level gives a format whose options set none: AVIF's libaom speed is 9 − effort.
    /// Other formats keep their encoder's default.
    func effort(_ format: ImageFormat) -> Int? {
        guard format == .avif else { return nil }
        switch self {
        case .fast: return 0
        case .balanced: return 3
        case .smallest: return 4
        }
    }

    /// libaom's options for AVIF at this level. Rectangular partitions cost more than twice the
    /// CPU for about 4 % of the bytes; blocks under 16 px cost `balanced` half again its CPU for
    /// about 2 % (`docs/performance.md`, "AVIF encoders" and "Search speeds"). `smallest` keeps
    /// every partition but the four-way splits, whose search costs 5 % of the CPU for no bytes
    /// (without 4×4 blocks it took a quarter less CPU for 1–2.5 % more bytes). No level copies
    /// blocks within the frame (``EncoderSettings/withoutIntraBlockCopy``).
    var avifCodecOptions: String {
        switch self {
        case .fast: return "enable-rect-partitions=0," + EncoderSettings.withoutIntraBlockCopy
        case .balanced: return "enable-rect-partitions=0,min-partition-size=16," + EncoderSettings.withoutIntraBlockCopy
        case .smallest: return "enable-1to4-partitions=0," + EncoderSettings.withoutIntraBlockCopy
        }
    }

    /// Encodes one candidate's search from the probe makes at most.
    var maximumTrials: Int {
        switch self {
        case .fast: return 2
        case .balanced: return 3
        case .smallest: return QualitySearch.maximumTrials
        }
    }

    /// A passing score this close above the target ends a search from the probe (a lower quality
    /// would save a few bytes for another encode).
    var closeEnough: Double {
        switch self {
        case .fast: return .infinity
        case .balanced: return 1.5
        case .smallest: return QualitySearch.closeEnough
        }
    }

    /// How many score points above the target a search from the probe aims its first encode, so
    /// that it passes at once more often than not (the probe predicts a larger variant's setting to
    /// within about a point).
    var firstAim: Double {
        switch self {
        case .fast, .balanced: return 0.3
        case .smallest: return 0
        }
    }

    /// Whether a larger variant's search tries a candidate format whose probe needed `bytes`,
    /// where the best candidate's probe needed `best`: `smallest` tries every candidate, `balanced`
    /// those within ``candidateMargin`` of the best, `fast` the best alone. (Smaller variants, which
    /// the probe does not predict, try every candidate at every level.)
    func tries(probeBytes bytes: Int, best: Int) -> Bool {
        switch self {
        case .fast: return bytes <= best
        case .balanced: return Double(bytes) <= Double(best) * (1 + Self.candidateMargin)
        case .smallest: return true
        }
    }

    /// How much larger than the best a candidate's probe may come out and still be tried at
    /// `balanced`: formats' sizes cross over between the probe and larger variants only when
    /// they are this close there.
    static let candidateMargin = 0.10
}
