/// Chooses the best variant for a display request. Pure logic, no I/O.
///
/// The rules, in order:
/// 1. Candidates are the variants whose format the caller accepts (and that pass the fit and
///    processor filters, when given).
/// 2. A variant *covers* the request when showing it at the requested pixel size
///    (points x scale) needs no upscaling: for `inside` and `contain` variants (shown aspect-fit),
///    when it reaches the box in its limiting dimension; for `cover` and `fill` variants
///    (shown aspect-fill), when it is at least the box in both dimensions. A box side of 0 is
///    unconstrained.
/// 3. If any candidate covers, the smallest covering one (by pixel area) wins; otherwise the
///    largest candidate wins (the best the bundle has).
/// 4. Ties of equal pixel size go to the caller's earlier-listed format, then to fewer
///    processors, then to fewer bytes, then to the lower cache key (so the answer is stable).
struct VariantSelector: Sendable {
    let pixelWidth: Double
    let pixelHeight: Double
    let accepting: [ImageFormat]
    let fit: FitMode.Kind?
    let processors: String?

    init(size: PointSize, scale: Double, accepting: [ImageFormat], fit: FitMode.Kind?, processors: [Processor]?) {
        let scale = scale > 0 ? scale : 1
        self.pixelWidth = max(0, size.width) * scale
        self.pixelHeight = max(0, size.height) * scale
        self.accepting = accepting
        self.fit = fit
        self.processors = processors.map(Processor.token(for:))
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
            return (width >= pixelWidth) || (height >= pixelHeight)
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
        let candidateProcessors = candidate.processors == "-" ? 0 : candidate.processors.split(separator: ",").count
        let currentProcessors = current.processors == "-" ? 0 : current.processors.split(separator: ",").count
        if candidateProcessors != currentProcessors { return candidateProcessors < currentProcessors }
        if candidate.byteCount != current.byteCount { return candidate.byteCount < current.byteCount }
        return candidate.cacheKey < current.cacheKey
    }
}
