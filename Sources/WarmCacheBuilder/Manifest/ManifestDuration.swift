import Foundation

/// The one duration grammar of warm-cache, for manifests and the command line (`--max-age`):
/// `30s`, `500ms`, `2m`, `1h`, `7d`, `2w`, `6mo` (30 days each), `1y` (365 days), compounds such
/// as `1m30s`, or a bare number of seconds (`30`, `2.5`).
public enum ManifestDuration {
    /// Seconds per unit (a unit is the whole run of letters after a number, so `ms` and `mo` are
    /// not `m`). A month is 30 days and a year 365: durations here are spans, not calendar dates.
    static let units: [(name: String, seconds: Double)] = [
        ("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400), ("w", 604_800),
        ("mo", 2_592_000), ("y", 31_536_000),
    ]

    /// The units, for messages: "ms, s, m, h, d, w, mo (30 days) or y (365 days)".
    public static let unitNames = "ms, s, m, h, d, w, mo (30 days) or y (365 days)"

    /// How to write one, for error messages.
    public static let examples = "30s, 500ms, 10m, 12h or 7d (a bare number is seconds)"

    /// The duration in seconds, or `nil` if `text` is not a duration.
    public static func seconds(from text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let bare = Double(trimmed), bare.isFinite, !trimmed.contains(where: \.isLetter) { return bare }
        var rest = Substring(trimmed)
        var total = 0.0
        var sawComponent = false
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count).drop { $0 == " " }
            let unitText = rest.prefix { $0.isLetter }
            guard let unit = units.first(where: { $0.name == unitText.lowercased() }) else { return nil }
            rest = rest.dropFirst(unitText.count).drop { $0 == " " }
            total += value * unit.seconds
            sawComponent = true
        }
        return sawComponent && total.isFinite ? total : nil
    }

    /// Renders seconds the way a manifest would write them (`30s`, `500ms`, `1.5s`), for messages and plans.
    public static func format(_ seconds: TimeInterval) -> String {
        if seconds < 1, seconds > 0 {
            let milliseconds = seconds * 1000
            return milliseconds == milliseconds.rounded() ? "\(Int(milliseconds))ms" : "\(milliseconds)ms"
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }
}
