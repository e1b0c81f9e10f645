/// The canonical cache key of one variant of one source: a single readable string.
///
/// Writer and reader derive keys only through this type, so they cannot drift apart.
///
/// Grammar (ABNF-style; `docs/bundle-format.md` is the reference):
///
///     key        = source "|" box "|" scale "|" fit "|" encoding "|" processors
///     source     = escaped source identifier: "%" -> "%25", "|" -> "%7C",
///                  bytes 0x00-0x20 and 0x7F -> "%XX" (uppercase hex); everything else verbatim
///     box        = dim "x" dim            ; dim = 1*DIGIT / "_" (unconstrained)
///     scale      = "@" 1*DIGIT "x"
///     fit        = ( "inside" / "fill" / "cover-" gravity / "contain-" hexcolour ) [ "+up" ]
///     encoding   = format [ "-q" 1*DIGIT / "-target" 1*DIGIT ] *( "-" option )   ; options in fixed order
///     processors = "-" / processor *( "," processor )        ; in application order
///
/// Example: `https://cdn.example.com/a.jpg|64x64|@2x|cover-attention|webp-q80|round(12)`.
///
/// Every field after `source` is drawn from a character set without `|`, and `source` escapes
/// every `|` it contains, so splitting on `|` always yields exactly six fields and the
/// mapping from (source, spec) to key is one-to-one; ``init(parsing:)`` inverts it.
public struct VariantKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The source image this variant was made from.
    public let source: SourceIdentifier
    /// How the variant was made: box, scale, fit, format, quality and processors.
    public let spec: VariantSpec
    /// The canonical key text stored in `variants.cache_key`.
    public let rawValue: String

    /// The key of a variant: what the builder writes and what ``CacheBundle/image(for:)`` looks up.
    ///
    /// ```swift
    /// let key = VariantKey(source: SourceIdentifier("https://cdn.example.com/a.jpg"),
    ///                      spec: VariantSpec(width: 64, height: 64, scale: 2, fit: .cover(.attention),
    ///                                        format: .webp, quality: 80))
    /// key.rawValue   // "https://cdn.example.com/a.jpg|64x64|@2x|cover-attention|webp-q80|-"
    /// ```
    public init(source: SourceIdentifier, spec: VariantSpec) {
        self.source = source
        self.spec = spec
        self.rawValue = VariantKey.render(source: source, spec: spec)
    }

    /// Parses a canonical key. Returns `nil` for any string that ``init(source:spec:)`` would not produce.
    public init?(parsing text: String) {
        let fields = text.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 6, let sourceText = VariantKey.unescape(fields[0]) else { return nil }

        let box = fields[1].split(separator: "x", omittingEmptySubsequences: false).map(String.init)
        guard box.count == 2, let width = VariantKey.parseDimension(box[0]),
              let height = VariantKey.parseDimension(box[1]) else { return nil }

        let scaleField = fields[2]
        guard scaleField.hasPrefix("@"), scaleField.hasSuffix("x"),
              let scale = Int(scaleField.dropFirst().dropLast()), scale >= 1,
              "@\(scale)x" == scaleField else { return nil }

        var fitToken = fields[3]
        let allowUpscale = fitToken.hasSuffix("+up")
        if allowUpscale { fitToken.removeLast(3) }
        guard let fit = FitMode(token: fitToken) else { return nil }

        var encoding = fields[4].split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard !encoding.isEmpty, let format = ImageFormat(rawValue: encoding.removeFirst()) else { return nil }
        var quality: Int?
        var qualityTarget: Int?
        if let first = encoding.first, first.hasPrefix("target") {
            guard let value = Int(first.dropFirst(6)), "target\(value)" == first else { return nil }
            qualityTarget = value
            encoding.removeFirst()
        } else if let first = encoding.first, first.hasPrefix("q") {
            guard let value = Int(first.dropFirst()), "q\(value)" == first else { return nil }
            quality = value
            encoding.removeFirst()
        }
        guard let options = EncodingOptions(tokens: encoding),
              let processors = Processor.parseList(fields[5]) else { return nil }

        let spec = VariantSpec(width: width, height: height, scale: scale, fit: fit, allowUpscale: allowUpscale,
                               format: format, quality: quality, qualityTarget: qualityTarget, options: options,
                               processors: processors)
        let key = VariantKey(source: SourceIdentifier(verbatim: sourceText), spec: spec)
        guard key.rawValue == text else { return nil }
        self = key
    }

    /// The canonical key text, as ``rawValue``.
    public var description: String { rawValue }

    /// Orders keys by their canonical text, as the index does.
    public static func < (lhs: VariantKey, rhs: VariantKey) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    // MARK: Rendering

    /// `source|WxH|@Sx|fit[+up]|format[-qN][-option…]|processors`, appended to one string (a
    /// re-warm renders the keys of every source it reuses).
    static func render(source: SourceIdentifier, spec: VariantSpec) -> String {
        var key = escape(source.rawValue)
        key.reserveCapacity(key.utf8.count + 64)
        key += "|"
        key += spec.width.map(String.init) ?? "_"
        key += "x"
        key += spec.height.map(String.init) ?? "_"
        key += "|@"
        key += String(spec.scale)
        key += "x|"
        key += spec.fit.token
        if spec.allowUpscale { key += "+up" }
        key += "|"
        key += spec.format.rawValue
        if let target = spec.qualityTarget {
            key += "-target"
            key += String(target)
        } else if let quality = spec.quality {
            key += "-q"
            key += String(quality)
        }
        for option in spec.options.tokens {
            key += "-"
            key += option
        }
        key += "|"
        key += Processor.token(for: spec.processors)
        return key
    }

    private static func parseDimension(_ text: String) -> Int?? {
        if text == "_" { return .some(nil) }
        guard let value = Int(text), value > 0, String(value) == text else { return nil }
        return .some(value)
    }

    /// Escapes the characters the grammar reserves in the source field.
    static func escape(_ text: String) -> String {
        func reserved(_ byte: UInt8) -> Bool {
            byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "|")
        }
        if !text.utf8.contains(where: reserved) { return text }  // the common case: nothing to escape
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar == "%" || scalar == "|" || scalar.value <= 0x20 || scalar.value == 0x7F {
                out += "%" + String(format2: UInt8(scalar.value))
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Inverts ``escape(_:)``; `nil` for escapes ``escape(_:)`` would not write.
    static func unescape(_ text: String) -> String? {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard iterator.count >= 2 else { return nil }
                let hex = String(decoding: iterator.prefix(2), as: UTF8.self)
                iterator = iterator.dropFirst(2)
                guard let value = UInt8(hex, radix: 16), String(format2: value) == hex,
                      value == UInt8(ascii: "%") || value == UInt8(ascii: "|") || value <= 0x20 || value == 0x7F
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
