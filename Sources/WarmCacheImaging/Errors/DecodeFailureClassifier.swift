/// Tells a damaged file from other decode failures, by what libvips and its codecs report.
///
/// With `fail_on` set, libvips turns the codecs' complaints about missing or inconsistent data
/// into errors; their wording is stable per codec (libjpeg, libpng/zlib, libwebp, libnsgif,
/// libheif, libjxl, libtiff), and these phrases cover them.
enum DecodeFailureClassifier {
    static let damagePhrases = [
        "truncated", "premature end", "unexpected end", "end of file", "eof", "corrupt", "crc",
        "incorrect header", "invalid", "bad ", "not enough", "out of data", "read error", "short read",
        "incomplete", "damaged", "too short", "extraneous", "unable to read", "error reading",
        "data error", "stream error", "bitstream", "checksum",
    ]

    /// Phrases by which codecs say the data ended before the image did ("Premature end of input
    /// file", "Unexpected end of file", "out of order read" after it).
    static let truncationPhrases = [
        "truncated", "premature end", "unexpected end", "end of file", "end of input", "eof", "out of data",
        "not enough", "short read", "too short", "out of order read",
    ]

    /// Whether `log` says the file ends early, in any of its lines.
    static func saysTruncated(_ log: some StringProtocol) -> Bool {
        let text = log.lowercased()
        return truncationPhrases.contains { text.contains($0) }
    }

    static func kind(of log: String) -> ImagingError.Kind {
        let text = log.lowercased()
        return damagePhrases.contains { text.contains($0) } ? .corruptOrTruncated : .decodeFailed
    }
}
