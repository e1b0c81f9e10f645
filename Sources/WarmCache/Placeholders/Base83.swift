/// BlurHash's base-83 digits: big-endian, fixed width per field, from a JSON-, HTML- and
/// shell-safe alphabet.
package enum Base83 {
    package static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")
    package static let values: [Character: Int] = Dictionary(uniqueKeysWithValues: alphabet.enumerated().map { ($1, $0) })

    /// `value` written with exactly `length` digits (higher digits are dropped).
    package static func encode(_ value: Int, length: Int) -> String {
        var digits: [Character] = []
        var rest = value
        for _ in 0..<length {
            digits.append(alphabet[rest % 83])
            rest /= 83
        }
        return String(digits.reversed())
    }

    /// The value of a run of digits, or `nil` if one is not in the alphabet.
    package static func decode<Digits: Sequence<Character>>(_ digits: Digits) -> Int? {
        var value = 0
        for character in digits {
            guard let digit = values[character] else { return nil }
            value = value * 83 + digit
        }
        return value
    }
}
