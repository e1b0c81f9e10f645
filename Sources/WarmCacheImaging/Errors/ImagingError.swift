import Foundation
/// Everything that can go wrong turning one source into variants, with enough context to act
/// on it: which source, what kind of failure, and what libvips said.
///
/// One bad image is always an `ImagingError` for that image, never a crash and never a
/// failure of its neighbours.
public struct ImagingError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What kind of failure this is; callers branch on it (skip, retry, report).
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The bytes are not an image format the engine accepts as input.
        case unsupportedFormat
        /// The requested output format has no encoder in this libvips build.
        case encoderUnavailable
        /// The source (or a requested upscaled output) has more pixels than the configured maximum.
        case tooManyPixels
        /// The source is larger than the configured maximum number of bytes.
        case tooManyBytes
        /// The file is truncated or its data is corrupt.
        case corruptOrTruncated
        /// Decoding failed for another reason (an unsupported variant of the format, ...).
        case decodeFailed
        /// A variant's spec cannot be rendered (zero or negative box, scale or processor length).
        case invalidRequest
        /// Resizing or a processor failed.
        case processingFailed
        /// The encoder failed.
        case encodeFailed
        /// libvips could not be initialised.
        case engineUnavailable
    }

    public var kind: Kind
    /// The source's name as given to ``ImagingEngine/open(_:name:)`` (a URL or path).
    public var source: String
    /// A human explanation.
    public var message: String
    /// The text of libvips' error buffer, when libvips reported the failure.
    public var libvipsMessage: String?

    public init(_ kind: Kind, source: String, message: String, libvipsMessage: String? = nil) {
        self.kind = kind
        self.source = source
        self.message = message
        self.libvipsMessage = libvipsMessage.flatMap { $0.isEmpty ? nil : $0 }
    }

    public var description: String {
        "\(source): \(summary)"
    }

    /// The message and libvips' own words, without the source's name (for lines that already
    /// name it). Lines that only say again what the message says in plain words ("Premature end
    /// of input file" after "the file is truncated") are left out.
    public var summary: String {
        var text = message
        if let libvipsMessage {
            let restated = message.contains("truncated")
            let lines = libvipsMessage.split(separator: "\n").map { Self.plain(String($0)) }
                .filter { !$0.isEmpty && !(restated && DecodeFailureClassifier.saysTruncated($0)) }
            if !lines.isEmpty { text += " (libvips: \(lines.joined(separator: "; ")))" }
        }
        return text
    }

    /// One line of libvips' error text without its type and operation names: "VipsJpeg: Premature
    /// end of JPEG file" and "jpegload_buffer: …" keep only what follows the name.
    static func plain(_ line: String) -> String {
        var text = line.trimmingCharacters(in: .whitespaces)
        if let colon = text.firstIndex(of: ":") {
            let name = text[..<colon]
            let isTypeName = name.hasPrefix("Vips") && name.dropFirst(4).first?.isUppercase == true
            let isOperation = !name.isEmpty && !name.contains(" ")
                && name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "_" }
            if isTypeName || isOperation {
                text = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            }
        }
        return text.replacing(/\bVips[A-Z][A-Za-z0-9]*/, with: "libvips")
    }
}

extension ImagingError {
    /// Wraps a failed libvips call.
    init(_ kind: Kind, source: String, call: VipsCallError) {
        self.init(kind, source: source, message: "\(Self.step(of: call.operation)) failed", libvipsMessage: call.log)
    }

    /// What a libvips operation does, in words ("heifsave_buffer" is encoding): users do not
    /// read operation names.
    static func step(of operation: String) -> String {
        if operation.contains("save") { return "encoding" }
        if operation.contains("load") || operation.contains("header") { return "decoding" }
        if operation.contains("thumbnail") || operation.contains("resize") { return "resizing" }
        return "image processing"
    }

    /// A decode failure, classified as corrupt/truncated data when libvips' message says so.
    static func decode(source: String, call: VipsCallError) -> ImagingError {
        let kind = DecodeFailureClassifier.kind(of: call.log)
        let message = switch kind {
        case .corruptOrTruncated where DecodeFailureClassifier.saysTruncated(call.log):
            "the file is truncated: it ends before its image data does"
        case .corruptOrTruncated: "the image data is corrupt"
        default: "decoding failed"
        }
        return ImagingError(kind, source: source, message: message, libvipsMessage: call.log)
    }
}
