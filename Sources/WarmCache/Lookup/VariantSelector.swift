/// Chooses the best variant for a display request. Pure logic, no I/O.
///
/// `docs/bundle-format.md` ("Finding the best image") is the reference; in short:
/// 1. The request is `rw = W·s` by `rh = H·s` pixels. A side that is not a finite positive number
///    is 0, which leaves it unconstrained; a scale that is not finite and positive is 1.
/// 2. Candidates are the variants whose format the caller accepts and that pass the fit and
///    processor filters (a plain lookup takes unprocessed variants only).
/// 3. A candidate *covers* the request when it is at least `rw` wide (or `rw` is 0) and at least
///    `rh` tall (or `rh` is 0); an `inside` or `contain` variant, shown aspect-fit, also covers a
///    request with both sides set when it reaches either of them.
/// 4. If any candidate covers, the smallest covering one by pixel area wins; otherwise the
///    largest. Equal areas go, in both cases, to the caller's earlier-listed format, then to fewer
///    processors, then to fewer bytes, then to the lower cache key (by UTF-8 bytes).
struct VariantSelector: Sendable {
    let pixelWidth: Double
    let pixelHeight: Double
    let accepting: [ImageFormat]
    let fit: FitMode.Kind?
    /// The `processors` value a candidate must have; `nil` for any.
    let processors: String?

    init(size: PointSize, scale: Double, accepting: [ImageFormat], fit: FitMode.Kind?, processors: ProcessorFilter) {
        func side(_ value: Double) -> Double { value.isFinite && value > 0 ? value : 0 }
        let scale = scale.isFinite && scale > 0 ? scale : 1
        self.pixelWidth = side(size.width) * scale
        self.pixelHeight = side(size.height) * scale
        self.accepting = accepting
        self.fit = fit
        self.processors = processors.requiredToken
    }

    func select(from records: [VariantRecord]) -> VariantRecord? {
        var best: (record: VariantRecord, covers: Bool)?
        for record in records where isCandidate(record) {
            let covering = covers(record)
            if let current = best, !beats(record, covering: covering, current.record, currentCovering: current.covers,
                                          candidateKeyIsLower: {
                                              record.cacheKey.utf8.lexicographicallyPrecedes(current.record.cacheKey.utf8)
                                          }) {
                continue
            }
            best = (record, covering)
        }
        return best?.record
    }

    func isCandidate(_ variant: some VariantFacts) -> Bool {
        accepting.contains(variant.format)
            && (fit == nil || variant.fit == fit)
            && (processors == nil || variant.processors == processors)
    }

    func covers(_ variant: some VariantFacts) -> Bool {
        let width = Double(variant.pixelSize.width)
        let height = Double(variant.pixelSize.height)
        let wideEnough = pixelWidth == 0 || width >= pixelWidth
        let tallEnough = pixelHeight == 0 || height >= pixelHeight
        switch variant.fit {
        case .cover, .fill:
            return wideEnough && tallEnough
        case .inside, .contain:
            if pixelWidth == 0 || pixelHeight == 0 { return wideEnough && tallEnough }
            return width >= pixelWidth || height >= pixelHeight
        }
    }

    /// Whether `candidate` is a better answer than `current`: covering beats not covering; then the
    /// smaller area among covering ones, the larger among the others; then the tie-breaks. The keys
    /// are compared (by `candidateKeyIsLower`) only when everything else is equal.
    func beats(_ candidate: some VariantFacts, covering: Bool, _ current: some VariantFacts, currentCovering: Bool,
               candidateKeyIsLower: () -> Bool) -> Bool {
        if covering != currentCovering { return covering }
        let candidateArea = candidate.pixelSize.area
        let currentArea = current.pixelSize.area
        if candidateArea != currentArea { return covering ? candidateArea < currentArea : candidateArea > currentArea }
        let candidateRank = accepting.firstIndex(of: candidate.format) ?? .max
        let currentRank = accepting.firstIndex(of: current.format) ?? .max
        if candidateRank != currentRank { return candidateRank < currentRank }
        let candidateProcessors = candidate.processorCount
        let currentProcessors = current.processorCount
        if candidateProcessors != currentProcessors { return candidateProcessors < currentProcessors }
        if candidate.byteCount != current.byteCount { return candidate.byteCount < current.byteCount }
        return candidateKeyIsLower()
    }
}
