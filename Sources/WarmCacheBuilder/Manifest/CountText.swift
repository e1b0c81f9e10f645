/// A count and its noun as messages print them: `1 source`, `3 sources`, `0 sources`.
package enum CountText {
    /// `count` and `noun` (singular), with an `s` unless `count` is 1 (regular plurals only).
    package static func of(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
