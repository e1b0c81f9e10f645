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
        var bestCovering: VariantRecord?
        var largest: VariantRecord?
        for record in records where isCandidate(record) {
            if covers(record) {
                if bestCovering.map({ isBetterCovering(record, than: $0) }) ?? true { bestCovering = record }
            } else if bestCovering == nil {
                if largest.map({ isBetterFallback(record, than: $0) }) ?? true { largest = record }
            }
        }
        return bestCovering ?? largest
    }

    func isCandidate(_ record: VariantRecord) -> Bool {
        accepting.contains(record.format)
            && (fit == nil || record.fit == fit)
            && (processors == nil || record.processors == processors)
    }

    func covers(_ record: VariantRecord) -> Bool {
        let width = Double(record.pixelSize.width)
        let height = Double(record.pixelSize.height)
        let wideEnough = pixelWidth == 0 || width >= pixelWidth
        let tallEnough = pixelHeight == 0 || height >= pixelHeight
        switch record.fit {
        case .cover, .fill:
            return wideEnough && tallEnough
        case .inside, .contain:
            if pixelWidth == 0 || pixelHeight == 0 { return wideEnough && tallEnough }
            return width >= pixelWidth || height >= pixelHeight
        }
    }

    private func isBetterCovering(_ candidate: VariantRecord, than current: VariantRecord) -> Bool {
        if candidate.pixelSize.area != current.pixelSize.area {
            return candidate.pixelSize.area < current.pixelSize.area
        }
        return wins(tieBetween: candidate, and: current)
    }

    private func isBetterFallback(_ candidate: VariantRecord, than current: VariantRecord) -> Bool {
        if candidate.pixelSize.area != current.pixelSize.area {
            return candidate.pixelSize.area > current.pixelSize.area
        }
        return wins(tieBetween: candidate, and: current)
    }

    private func wins(tieBetween candidate: VariantRecord, and current: VariantRecord) -> Bool {
        let candidateRank = accepting.firstIndex(of: candidate.format) ?? .max
        let currentRank = accepting.firstIndex(of: current.format) ?? .max
        if candidateRank != currentRank { return candidateRank < currentRank }
        let candidateProcessors = candidate.processorCount
        let currentProcessors = current.processorCount
        if candidateProcessors != currentProcessors { return candidateProcessors < currentProcessors }
        if candidate.byteCount != current.byteCount { return candidate.byteCount < current.byteCount }
        return candidate.cacheKey.utf8.lexicographicallyPrecedes(current.cacheKey.utf8)
    }
}
