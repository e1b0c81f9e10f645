/// Which processed variants a best-fit lookup may answer with.
///
/// A plain lookup (no `processors:` and no `preset:`) answers only with unprocessed variants, so
/// asking for "this URL at this size" never returns a rounded avatar or a blurred backdrop.
/// Name the processors (`[.roundCorners(radius: 24)]`), a preset, or ``any`` to get processed ones.
public enum ProcessorFilter: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// Only variants without processors (`processors` column `-`).
    case unprocessed
    /// Only variants with exactly these processors, in this order.
    case exactly([Processor])
    /// Any variant, processed or not.
    case any

    /// `[]` is ``unprocessed``; a non-empty list is ``exactly(_:)``.
    public init(arrayLiteral elements: Processor...) {
        self = elements.isEmpty ? .unprocessed : .exactly(elements)
    }

    /// The `processors` column value a variant must have, or `nil` for any.
    var requiredToken: String? {
        switch self {
        case .unprocessed: return "-"
        case .exactly(let processors): return Processor.token(for: processors)
        case .any: return nil
        }
    }
}
