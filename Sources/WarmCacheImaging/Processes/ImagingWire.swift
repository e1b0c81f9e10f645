import Foundation
import WarmCache
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The frames a warm and its imaging processes exchange over a pair of pipes.
///
/// A frame is a JSON header followed by raw payloads (encoded images), each length-prefixed:
/// `u32 header length, header, u32 payload count, (u32 length, bytes)…`, little-endian. The
/// first frame to a process is its ``Setup``; then each job (a source's bytes as the payload) is
/// answered by one reply (the variants' bytes as payloads, in spec order).
enum ImagingWire {
    /// How a process starts libvips and its engine.
    struct Setup: Codable {
        var configuration: ImagingConfiguration
        var vectorPaths: ImagingRuntime.VectorPaths
    }

    /// The variants a source asks for: `specs` for an opaque source, `alphaSpecs` for one with
    /// alpha (the process reads the header, so the warm does not have to); `nil` when they are
    /// the same. Every source with the same presets has the same set.
    struct SpecSet: Codable, Hashable {
        var specs: [VariantSpec]
        var alphaSpecs: [VariantSpec]?

        init(specs: [VariantSpec], alphaSpecs: [VariantSpec]) {
            self.specs = specs
            self.alphaSpecs = alphaSpecs == specs ? nil : alphaSpecs
        }

        func specs(hasAlpha: Bool) -> [VariantSpec] {
            hasAlpha ? alphaSpecs ?? specs : specs
        }
    }

    /// One source to render. Its spec set goes over the pipe once per process: the first job that
    /// uses it carries it with a number (`newSpecSet`), later ones only the number (decoding the
    /// specs as JSON for every small source cost more than its header read). A job numbered `nil`
    /// carries its set without one (the process remembers a bounded number of sets).
    struct Job: Codable {
        var name: String
        var specSet: Int?
        var newSpecSet: SpecSet?
        var placeholder: Int
    }

    /// How many spec sets a process remembers; later sets travel with every job that uses them.
    static let rememberedSpecSets = 256

    /// What became of a job.
    struct Reply: Codable {
        /// One per spec of the job (those for the source's alpha), in order.
        struct Variant: Codable {
            var pixelWidth: Int
            var pixelHeight: Int
            var hasAlpha: Bool
        }

        struct Failure: Codable {
            var kind: String
            var message: String
            var libvipsMessage: String?
        }

        var info: SourceImageInfo?
        var variants: [Variant] = []
        var placeholder: ImagePlaceholder?
        var failure: Failure?
    }

    /// A frame that could not be read or written: the other side is gone or broke the protocol.
    struct BrokenPipe: Error, CustomStringConvertible {
        var description: String
    }

    /// Frames larger than this are refused (a source is at most `maxInputBytes`).
    static let maxLength = 1 << 31

    static func write(_ header: some Encodable, payloads: [Data] = [], to descriptor: Int32) throws {
        let json = try JSONEncoder().encode(header)
        var frame = Data(capacity: 8 + json.count + payloads.reduce(0) { $0 + 4 + $1.count })
        func append(_ value: Int) {
            withUnsafeBytes(of: UInt32(value).littleEndian) { frame.append(contentsOf: $0) }
        }
        append(json.count)
        frame.append(json)
        append(payloads.count)
        for payload in payloads {
            append(payload.count)
            frame.append(payload)
        }
        try frame.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw BrokenPipe(description: "writing a frame: \(String(cString: strerror(errno)))")
                }
                offset += written
            }
        }
    }

    /// The next frame, or `nil` when the other side closed the pipe between frames.
    static func read<Header: Decodable>(_ type: Header.Type, from descriptor: Int32) throws -> (Header, [Data])? {
        guard let headerLength = try readLength(descriptor) else { return nil }
        let header = try JSONDecoder().decode(Header.self, from: try readExactly(headerLength, descriptor))
        let count = try lengthInFrame(descriptor)
        var payloads: [Data] = []
        for _ in 0..<count {
            payloads.append(try readExactly(try lengthInFrame(descriptor), descriptor))
        }
        return (header, payloads)
    }

    /// A length field, or `nil` if the pipe closed before it (between frames).
    private static func readLength(_ descriptor: Int32) throws -> Int? {
        var bytes = [UInt8](repeating: 0, count: 4)
        let got = try fill(&bytes, descriptor)
        if got == 0 { return nil }
        guard got == 4 else { throw BrokenPipe(description: "the pipe closed mid-frame") }
        let value = Int(UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24)
        guard value <= maxLength else { throw BrokenPipe(description: "a frame of \(value) bytes") }
        return value
    }

    /// A length field inside a frame, where the pipe must not end.
    private static func lengthInFrame(_ descriptor: Int32) throws -> Int {
        guard let length = try readLength(descriptor) else {
            throw BrokenPipe(description: "the pipe closed mid-frame")
        }
        return length
    }

    private static func readExactly(_ count: Int, _ descriptor: Int32) throws -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        guard try fill(&bytes, descriptor) == count else {
            throw BrokenPipe(description: "the pipe closed mid-frame")
        }
        return Data(bytes)
    }

    /// Reads until `bytes` is full or the pipe ends; returns how many bytes were read.
    private static func fill(_ bytes: inout [UInt8], _ descriptor: Int32) throws -> Int {
        var offset = 0
        try bytes.withUnsafeMutableBytes { buffer in
            while offset < buffer.count {
                let got = systemRead(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if got < 0 {
                    if errno == EINTR { continue }
                    throw BrokenPipe(description: "reading a frame: \(String(cString: strerror(errno)))")
                }
                if got == 0 { break }
                offset += got
            }
        }
        return offset
    }
}

/// `write(2)`, out of reach of ``ImagingWire/write(_:payloads:to:)``'s name.
private func systemWrite(_ descriptor: Int32, _ pointer: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, pointer, count)
}

/// `read(2)`, out of reach of ``ImagingWire/read(_:from:)``'s name.
private func systemRead(_ descriptor: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, pointer, count)
}
