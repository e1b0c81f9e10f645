/// Byte payloads for fixture routes.
public enum FixtureBytes {
    /// The 8-byte PNG signature.
    public static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// `count` bytes that start like a PNG (so a sniffer accepts them) followed by
    /// deterministic pseudo-random filler; `seed` varies the content. Not decodable: for
    /// transport tests (sizes, hashes, limits), not for imaging.
    public static func fakePNG(count: Int, seed: UInt64 = 1) -> [UInt8] {
        var bytes = Array(pngSignature.prefix(max(0, count)))
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        bytes.reserveCapacity(count)
        while bytes.count < count {
            // xorshift64*: fast, deterministic, good enough for filler.
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            bytes.append(UInt8(truncatingIfNeeded: (state &* 0x2545_F491_4F6C_DD1D) >> 56))
        }
        return bytes
    }
}
