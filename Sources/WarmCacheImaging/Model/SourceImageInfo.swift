import WarmCache

/// What the header of a source says, read without decoding its pixels.
public struct SourceImageInfo: Sendable, Hashable, Codable {
    /// The source's format when it is also an output format (`nil` for TIFF).
    public var format: ImageFormat?
    /// The libvips loader family that reads it: `jpeg`, `png`, `webp`, `gif`, `heif`, `jxl` or `tiff`.
    public var loader: String
    /// Upright width in pixels, after the EXIF orientation is applied.
    public var pixelWidth: Int
    /// Upright height in pixels, after the EXIF orientation is applied.
    public var pixelHeight: Int
    /// The EXIF orientation tag, 1 (upright) to 8.
    public var orientation: Int
    /// Whether the source has an alpha channel (it may still be fully opaque).
    public var hasAlpha: Bool
    /// Frames (pages) in the file; only the first is rendered.
    public var pageCount: Int
    /// An animated GIF or WebP. Variants are stills of the first frame.
    public var isAnimated: Bool
    /// Whether the file embeds an ICC colour profile.
    public var hasICCProfile: Bool
    /// The colour model of the stored pixels.
    public var colorModel: ColorModel
    /// The size of the encoded source in bytes.
    public var byteCount: Int

    /// The stored pixels' colour model.
    public enum ColorModel: String, Sendable, Hashable, Codable {
        case rgb, grey, cmyk, other
    }

    /// The upright size.
    public var pixelSize: PixelSize { PixelSize(width: pixelWidth, height: pixelHeight) }
}
