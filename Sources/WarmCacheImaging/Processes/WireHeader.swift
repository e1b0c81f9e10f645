import Foundation
import WarmCache

/// A frame header that travels in the wire's compact form: written field by field with a
/// ``WireWriter`` and read back in the same order with a ``WireReader``.
///
/// Jobs and replies go both ways for every source; as JSON their encoding and decoding cost more
/// than a small source's header read (about 4 % of a cold warm's CPU, both processes together).
protocol WireHeader {
    func write(to writer: inout WireWriter)
    init(from reader: inout WireReader) throws(ImagingWire.BrokenPipe)
}

/// Appends fields: integers as 8 bytes little-endian, flags as one byte, text and bytes with
/// their length first (`-1` for `nil`).
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func int(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func bool(_ value: Bool) {
        bytes.append(value ? 1 : 0)
    }

    mutating func string(_ value: String?) {
        guard let value else { return int(-1) }
        int(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }

    mutating func data(_ value: Data?) {
        guard let value else { return int(-1) }
        int(value.count)
        bytes.append(contentsOf: value)
    }
}

/// Reads the fields a ``WireWriter`` wrote; anything short or malformed is a broken pipe.
struct WireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func int() throws(ImagingWire.BrokenPipe) -> Int {
        let field = try take(8)
        var value: Int64 = 0
        for (index, byte) in field.enumerated() {
            value |= Int64(byte) << (8 * index)
        }
        return Int(value)
    }

    mutating func bool() throws(ImagingWire.BrokenPipe) -> Bool {
        try take(1).first == 1
    }

    mutating func string() throws(ImagingWire.BrokenPipe) -> String? {
        guard let length = try length() else { return nil }
        return String(decoding: try take(length), as: UTF8.self)
    }

    mutating func data() throws(ImagingWire.BrokenPipe) -> Data? {
        guard let length = try length() else { return nil }
        return Data(try take(length))
    }

    /// A string that must be there.
    mutating func text() throws(ImagingWire.BrokenPipe) -> String {
        guard let value = try string() else { throw ImagingWire.BrokenPipe(description: "a header lacks a field") }
        return value
    }

    private mutating func length() throws(ImagingWire.BrokenPipe) -> Int? {
        let length = try int()
        guard length >= -1 else { throw ImagingWire.BrokenPipe(description: "a header field of length \(length)") }
        return length < 0 ? nil : length
    }

    private mutating func take(_ count: Int) throws(ImagingWire.BrokenPipe) -> ArraySlice<UInt8> {
        guard count <= bytes.count - offset else {
            throw ImagingWire.BrokenPipe(description: "a header ends early")
        }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }
}

extension ImagingWire.Job: WireHeader {
    func write(to writer: inout WireWriter) {
        writer.string(name)
        writer.int(specSet ?? -1)
        // Once per set and process: JSON is fine here.
        writer.data(newSpecSet.flatMap { try? JSONEncoder().encode($0) })
        writer.int(placeholder)
    }

    init(from reader: inout WireReader) throws(ImagingWire.BrokenPipe) {
        name = try reader.text()
        let number = try reader.int()
        specSet = number < 0 ? nil : number
        if let json = try reader.data() {
            guard let set = try? JSONDecoder().decode(ImagingWire.SpecSet.self, from: json) else {
                throw ImagingWire.BrokenPipe(description: "a job with a malformed spec set")
            }
            newSpecSet = set
        } else {
            newSpecSet = nil
        }
        placeholder = try reader.int()
    }
}

extension ImagingWire.Reply: WireHeader {
    func write(to writer: inout WireWriter) {
        writer.bool(info != nil)
        if let info {
            writer.string(info.format?.rawValue)
            writer.string(info.loader)
            writer.int(info.pixelWidth)
            writer.int(info.pixelHeight)
            writer.int(info.orientation)
            writer.bool(info.hasAlpha)
            writer.int(info.pageCount)
            writer.bool(info.isAnimated)
            writer.bool(info.hasICCProfile)
            writer.string(info.colorModel.rawValue)
            writer.int(info.byteCount)
        }
        writer.int(variants.count)
        for variant in variants {
            writer.int(variant.pixelWidth)
            writer.int(variant.pixelHeight)
            writer.bool(variant.hasAlpha)
            writer.int(variant.candidate)
            // The found quality, and the score in hundredths (-1: no quality target; 0: the source's file kept).
            writer.int(variant.perceptual.map { $0.quality ?? 0 } ?? -1)
            writer.int(variant.perceptual.map { Int(($0.score * 100).rounded()) } ?? 0)
        }
        writer.bool(placeholder != nil)
        if let placeholder {
            writer.data(placeholder.thumbHash)
            writer.string(placeholder.blurHash)
            writer.data(placeholder.averageColor.map { Data([$0.red, $0.green, $0.blue, $0.alpha]) })
        }
        writer.bool(failure != nil)
        if let failure {
            writer.string(failure.kind)
            writer.string(failure.message)
            writer.string(failure.libvipsMessage)
        }
    }

    init(from reader: inout WireReader) throws(ImagingWire.BrokenPipe) {
        self.init()
        if try reader.bool() {
            let format = try reader.string()
            let loader = try reader.text()
            let pixelWidth = try reader.int(), pixelHeight = try reader.int(), orientation = try reader.int()
            let hasAlpha = try reader.bool()
            let pageCount = try reader.int()
            let isAnimated = try reader.bool(), hasICCProfile = try reader.bool()
            let colorModel = try reader.text()
            let byteCount = try reader.int()
            guard let model = SourceImageInfo.ColorModel(rawValue: colorModel),
                  format.map({ ImageFormat(rawValue: $0) != nil }) ?? true else {
                throw ImagingWire.BrokenPipe(description: "a reply with an unknown format or colour model")
            }
            info = SourceImageInfo(format: format.flatMap(ImageFormat.init(rawValue:)), loader: loader,
                                   pixelWidth: pixelWidth, pixelHeight: pixelHeight, orientation: orientation,
                                   hasAlpha: hasAlpha, pageCount: pageCount, isAnimated: isAnimated,
                                   hasICCProfile: hasICCProfile, colorModel: model, byteCount: byteCount)
        }
        let count = try reader.int()
        guard count >= 0, count <= 1 << 16 else {
            throw ImagingWire.BrokenPipe(description: "a reply with \(count) variants")
        }
        for _ in 0..<count {
            var variant = Variant(pixelWidth: try reader.int(), pixelHeight: try reader.int(),
                                  hasAlpha: try reader.bool(), candidate: try reader.int())
            let quality = try reader.int(), score = try reader.int()
            if quality >= 0 {
                variant.perceptual = PerceptualEncoding(quality: quality > 0 ? quality : nil, score: Double(score) / 100)
            }
            variants.append(variant)
        }
        if try reader.bool() {
            var placeholder = ImagePlaceholder(thumbHash: try reader.data(), blurHash: try reader.string())
            if let colour = try reader.data() {
                guard colour.count == 4 else { throw ImagingWire.BrokenPipe(description: "a reply with a bad colour") }
                placeholder.averageColor = RGBAColor(red: colour[colour.startIndex], green: colour[colour.startIndex + 1],
                                                     blue: colour[colour.startIndex + 2],
                                                     alpha: colour[colour.startIndex + 3])
            }
            self.placeholder = placeholder
        }
        if try reader.bool() {
            failure = Failure(kind: try reader.text(), message: try reader.text(), libvipsMessage: try reader.string())
        }
    }
}
