/// A count and its noun as messages print them: `1 source`, `3 sources`, `0 sources`.
package enum CountText {
    /// `count` and `noun` (singular), with an `s` unless `count` is 1 (regular plurals only).
    package static func of(_ count: Int, _ noun: String) -> String {
        "\(count) \(self.noun(noun, count: count))"
    }

    /// The noun alone, singular or plural for `count`: `variant`, `variants` (for columns whose
    /// number is printed apart, padded).
    package static func noun(_ noun: String, count: Int) -> String {
        count == 1 ? noun : noun + "s"
    }
}
