import CVipsShim
import WarmCache

/// What 4:2:0 chroma alone costs a variant's pixels: the score after a round trip through AVIF's
/// own RGB-to-YUV conversions, without compression. A larger AVIF variant whose probe chose 4:2:0
/// keeps it only while this leaves room above the target (``PerceptualEncoder``).
enum ChromaRoundTrip {
    /// How far above the target a variant's own pixels must still score after 4:2:0 alone (no
    /// compression) for it to keep the 4:2:0 its probe chose: below, its colour edges (which a
    /// 256 px probe blurs away) would need a far higher setting than 4:4:4 does. On 30 KDE
    /// wallpapers the photos and paintings the probe sent to 4:2:0 scored 85–95; a flower in
    /// saturated colour on a flat ground (Debian's `calla`) scores 77–83, and at 4:2:0 took 3.4×
    /// the bytes of 4:4:4.
    static let headroom = 5.0

    /// The score of `scoring`'s pixels after a 4:2:0 round trip through AVIF's own conversions.
    static func score(_ scoring: SSIMULACRA2Image, against reference: SSIMULACRA2Reference)
        throws(VipsCallError) -> Double {
        var length = 0
        let pixels = scoring.pixels.withUnsafeBufferPointer {
            wc_avif_chroma_roundtrip8($0.baseAddress, Int32(scoring.width), Int32(scoring.height),
                                      Int32(scoring.channels), &length)
        }
        guard let pixels else { throw VipsCallError.take("chroma round trip") }
        defer { wc_free(pixels) }
        return reference.score(SSIMULACRA2Image(width: scoring.width, height: scoring.height, channels: scoring.channels,
                                                pixels: Array(UnsafeBufferPointer(start: pixels, count: length))))
    }
}
