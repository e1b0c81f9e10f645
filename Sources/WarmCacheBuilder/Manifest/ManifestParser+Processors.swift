import WarmCache
import Yams

/// Reading `processors:`, a list applied in order after sizing:
///
///     processors: [{ round: 24 }, { blur: 2 }, grayscale, { flatten: "#ffffff" }]
///
/// Each item is a one-key mapping (`{ round: 24 }`); `grayscale` may also be a bare word or
/// `{ grayscale: true }` (`false` leaves it out). Lengths are in points.
extension ManifestParser {
    static let processorNames = ["round", "blur", "grayscale", "flatten"]
    /// The largest corner radius and blur sigma accepted, in points.
    static let maximumProcessorLength = 4096.0

    func parseProcessors(_ node: Node) -> Located<[Located<Processor>]>? {
        guard let items = reader.list(node, what: "'processors'") else { return nil }
        let processors = items.compactMap(parseProcessor)
        return Located(processors, at: reader.location(node))
    }

    private func parseProcessor(_ item: Node) -> Located<Processor>? {
        let location = reader.location(item)
        if case .scalar(let scalar) = item, !item.isNull {
            if ["grayscale", "greyscale"].contains(scalar.string.lowercased()) {
                return Located(.grayscale, at: location)
            }
            if Self.processorNames.contains(scalar.string.lowercased()) {
                diagnostics.error("processor '\(scalar.string)' needs a value: write it as"
                                  + " '{ \(scalar.string): ... }'", at: location)
            } else {
                reportUnknownProcessor(scalar.string, at: location)
            }
            return nil
        }
        guard let fields = reader.mapping(item, what: "each processor") else { return nil }
        guard fields.count == 1, let field = fields.first else {
            diagnostics.error("each processor is a mapping with exactly one key, such as '{ round: 24 }';"
                              + " found \(fields.count) keys (write one list item per processor)", at: location)
            return nil
        }
        let value = field.value
        switch field.key.lowercased() {
        case "round":
            return reader.positiveNumber(value, what: "corner radius", maximum: Self.maximumProcessorLength)
                .map { Located(.roundCorners(radius: $0.value), at: field.keyLocation) }
        case "blur":
            return reader.positiveNumber(value, what: "blur sigma", maximum: Self.maximumProcessorLength)
                .map { Located(.blur(sigma: $0.value), at: field.keyLocation) }
        case "grayscale", "greyscale":
            guard let enabled = reader.bool(value, what: "'grayscale'"), enabled.value else { return nil }
            return Located(.grayscale, at: field.keyLocation)
        case "flatten":
            return parseColour(value, what: "'flatten'")
                .map { Located(.flatten(background: $0.value), at: field.keyLocation) }
        default:
            reportUnknownProcessor(field.key, at: field.keyLocation)
            return nil
        }
    }

    private func reportUnknownProcessor(_ name: String, at location: ManifestLocation) {
        let hint = ManifestSuggestions.hint(for: name, in: Self.processorNames)
        diagnostics.error("unknown processor '\(name)'\(hint); use round, blur, grayscale or flatten", at: location)
    }
}
