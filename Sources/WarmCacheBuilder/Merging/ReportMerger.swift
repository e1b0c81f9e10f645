import Foundation
import WarmCache

/// Combines the `--report` files of the shards of one manifest into the report of the whole.
///
/// It works on the JSON itself, so it keeps fields it does not know about: `sources` are
/// concatenated in identifier order, `status` is the worst of the parts (`failed` > `partial` >
/// `ok`), `output` becomes the merged bundle, `seconds` the longest part (the shards ran at the
/// same time), `reportVersion` stays the parts' version, `warnings` and `removedSources` keep
/// each entry once (every part repeats the manifest's warnings); otherwise numbers add up (the
/// `totals`), lists concatenate, objects merge key by key, and a text or flag that differs
/// keeps the first part's.
public enum ReportMerger {
    public static func merge(_ files: [URL], output: URL) throws(BundleMergeError) -> Data {
        var merged: [String: JSONValue]?
        for file in files {
            let value: JSONValue
            do {
                value = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: file))
            } catch {
                throw BundleMergeError(.unreadablePart, "cannot merge the report \(file.path): "
                    + "it is not readable JSON (\(PlainReason.of(error)))")
            }
            guard case .object(let report) = value, case .array = report["sources"] else {
                throw BundleMergeError(.unreadablePart, "cannot merge the report \(file.path): "
                    + "it is not a warm-cache --report file (no 'sources' list)")
            }
            merged = merged.map { combine($0, report) } ?? report
        }
        guard var merged else {
            throw BundleMergeError(.unreadablePart, "no reports to merge")
        }
        merged["output"] = .string(output.path)
        var sources: [JSONValue] = []
        if case .array(let list) = merged["sources"] {
            sources = list.sorted { $0.identifier < $1.identifier }
        }
        // Written as `warm --report` writes: compact, one source per line.
        merged["sources"] = .array([])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let head = String(decoding: try encoder.encode(JSONValue.object(merged)), as: UTF8.self)
            let lines = try sources.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
            let list = lines.isEmpty ? "[]" : "[\n" + lines.joined(separator: ",\n") + "\n]"
            return Data((head.replacingOccurrences(of: "\"sources\":[]", with: "\"sources\":" + list) + "\n").utf8)
        } catch {
            throw BundleMergeError(.fileSystem, "cannot encode the merged report: \(PlainReason.of(error))")
        }
    }

    private static let statusRank = ["ok": 0, "partial": 1, "failed": 2]

    /// The top level, where `status` and `seconds` have their own rules.
    private static func combine(_ a: [String: JSONValue], _ b: [String: JSONValue]) -> [String: JSONValue] {
        var result = a.merging(b) { x, y in
            switch (x, y) {
            case (.string(let s), .string(let t)) where statusRank[s] != nil && statusRank[t] != nil:
                return statusRank[t]! > statusRank[s]! ? y : x
            default:
                return x.combined(with: y)
            }
        }
        if let x = a["seconds"]?.number, let y = b["seconds"]?.number {
            result["seconds"] = .double(max(x, y))
        }
        // The schema's version is the parts' version, not their sum.
        if let version = a["reportVersion"] { result["reportVersion"] = version }
        // Every part repeats the manifest's warnings, and the removed sources of one bundle.
        for key in ["warnings", "removedSources"] {
            if case .array(let list)? = result[key] {
                var seen: Set<String> = []
                result[key] = .array(list.filter { value in
                    guard case .string(let text) = value else { return true }
                    return seen.insert(text).inserted
                })
            }
        }
        return result
    }
}

/// Any JSON value, decoded without knowing the schema.
enum JSONValue: Codable, Equatable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    var number: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    var identifier: String {
        if case .object(let object) = self, case .string(let identifier) = object["identifier"] { return identifier }
        return ""
    }

    /// Numbers add up, lists concatenate, objects merge key by key; anything else keeps `self`.
    func combined(with other: JSONValue) -> JSONValue {
        switch (self, other) {
        case (.int(let x), .int(let y)): return .int(x + y)
        case (.int, .double), (.double, .int), (.double, .double): return .double(number! + other.number!)
        case (.array(let x), .array(let y)): return .array(x + y)
        case (.object(let x), .object(let y)): return .object(x.merging(y) { $0.combined(with: $1) })
        default: return self
        }
    }
}
