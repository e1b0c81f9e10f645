import Foundation

/// Byte counts as people read them: `0 B`, `812 B`, `14.2 KB`, `3.1 MB`, in decimal units
/// (1 KB = 1,000 bytes), as file managers and app stores show sizes. Every byte count a user
/// reads (messages, summaries, reports, the contact sheet's script) is written this one way.
package enum ByteCountText {
    package static func format(_ count: some BinaryInteger) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}
