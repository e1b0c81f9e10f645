import Foundation
import WarmCache

/// The frames a warm and its imaging processes exchange over a pair of pipes.
///
/// A frame is a header followed by raw payloads (encoded images), each length-prefixed:
/// `u32 header length, header, u32 payload count, (u32 length, bytes)…`, little-endian. The
/// first frame to a process is its ``Setup`` (a JSON header); then each job (a source's bytes as
/// the payload) is answered by one reply (the variants' bytes as payloads, in the order of the spec groups), their
/// headers in the compact form of ``WireHeader``. Before its reply, a job's process sends an empty
/// frame (no header, no payload) as each variant is encoded, for the warm's progress.
enum ImagingWire {
    /// How a process starts libvips and its engine.
    struct Setup: Codable {
        var configuration: ImagingConfiguration
        var vectorPaths: ImagingRuntime.VectorPaths
    }

    /// The variants a source asks for, each a group of candidate specs (usually one): `specs`
    /// for an opaque source, `alphaSpecs` for one with alpha (the process reads the header, so the
    /// warm does not have to); `nil` when they are the same. Every source with the same presets
    /// has the same set.
    struct SpecSet: Codable, Hashable {
        var specs: [[VariantSpec]]
        var alphaSpecs: [[VariantSpec]]?

        init(specs: [[VariantSpec]], alphaSpecs: [[VariantSpec]]) {
            self.specs = specs
            self.alphaSpecs = alphaSpecs == specs ? nil : alphaSpecs
        }

        func specs(hasAlpha: Bool) -> [[VariantSpec]] {
            hasAlpha ? alphaSpecs ?? specs : specs
        }
    }

    /// One source to render. Its spec set goes over the pipe once per process: the first job that
    /// uses it carries it with a number (`newSpecSet`), later ones only the number (decoding the
    /// specs as JSON for every small source cost more than its header read). A job numbered `nil`
    /// carries its set without one (the process remembers a bounded number of sets).
    struct Job {
        var name: String
        var specSet: Int?
        var newSpecSet: SpecSet?
        var placeholder: Int
    }

    /// How many spec sets a process remembers; later sets travel with every job that uses them.
    static let rememberedSpecSets = 256

    /// What became of a job.
    struct Reply {
        /// One per spec of the job (those for the source's alpha), in order.
        struct Variant {
            var pixelWidth: Int
            var pixelHeight: Int
            var hasAlpha: Bool
            /// Which spec of the variant's candidates was kept.
            var candidate: Int
            var perceptual: PerceptualEncoding?
        }

        struct Failure {
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

    /// Writes the process's setup (JSON: once per process).
    static func write(_ setup: Setup, to descriptor: Int32) throws {
        try write(header: [UInt8](try JSONEncoder().encode(setup)), payloads: [], to: descriptor)
    }

    static func write(_ header: some WireHeader, payloads: [Data], to descriptor: Int32) throws {
        var writer = WireWriter()
        header.write(to: &writer)
        try write(header: writer.bytes, payloads: payloads, to: descriptor)
    }

    private static func write(header: [UInt8], payloads: [Data], to descriptor: Int32) throws {
        var frame = Data(capacity: 8 + header.count + payloads.reduce(0) { $0 + 4 + $1.count })
        func append(_ value: Int) {
            withUnsafeBytes(of: UInt32(value).littleEndian) { frame.append(contentsOf: $0) }
        }
        append(header.count)
        frame.append(contentsOf: header)
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

    /// Tells the warm that one more variant of the current job is encoded (an empty frame: a
    /// reply's header is never empty).
    static func writeVariantDone(to descriptor: Int32) throws {
        try write(header: [], payloads: [], to: descriptor)
    }

    /// The reply to a job, calling `onVariant` for each empty frame that comes before it; `nil`
    /// when the process closed the pipe between frames.
    static func readReply(from descriptor: Int32, onVariant: (() -> Void)?) throws -> (Reply, [Data])? {
        while let (bytes, payloads) = try readFrame(from: descriptor) {
            if bytes.isEmpty && payloads.isEmpty {
                onVariant?()
                continue
            }
            var reader = WireReader(bytes)
            return (try Reply(from: &reader), payloads)
        }
        return nil
    }

    /// The process's setup, or `nil` when the other side closed the pipe first.
    static func readSetup(from descriptor: Int32) throws -> Setup? {
        guard let (header, _) = try readFrame(from: descriptor) else { return nil }
        return try JSONDecoder().decode(Setup.self, from: Data(header))
    }

    /// The next frame, or `nil` when the other side closed the pipe between frames.
    static func read<Header: WireHeader>(_ type: Header.Type, from descriptor: Int32) throws -> (Header, [Data])? {
        guard let (bytes, payloads) = try readFrame(from: descriptor) else { return nil }
        var reader = WireReader(bytes)
        return (try Header(from: &reader), payloads)
    }

    private static func readFrame(from descriptor: Int32) throws -> ([UInt8], [Data])? {
        guard let headerLength = try readLength(descriptor) else { return nil }
        let header = try readBytes(headerLength, descriptor)
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
        Data(try readBytes(count, descriptor))
    }

    private static func readBytes(_ count: Int, _ descriptor: Int32) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard try fill(&bytes, descriptor) == count else {
            throw BrokenPipe(description: "the pipe closed mid-frame")
        }
        return bytes
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
