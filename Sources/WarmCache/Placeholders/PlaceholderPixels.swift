/// A placeholder decoded to pixels: `width x height` RGBA8, row by row, not premultiplied.
///
/// Platform-neutral on purpose: hand ``rgba`` to whatever draws: a `CGImage` on Apple platforms
/// (where this type has a `cgImage()` method that makes one), a texture, a PNG encoder on a
/// server.
///
/// ```swift
/// if let pixels = try bundle.placeholder(for: url)?.pixels(width: 32, height: 32) {
///     imageView.image = pixels.cgImage().map { UIImage(cgImage: $0) }   // Apple platforms
/// }
/// ```
public struct PlaceholderPixels: Hashable, Sendable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: red, green, blue, alpha.
    public let rgba: [UInt8]

    /// Wraps RGBA8 pixels.
    ///
    /// - Precondition: `width` and `height` are positive and `rgba` holds exactly
    ///   `width * height * 4` bytes.
    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(width > 0 && height > 0 && rgba.count == width * height * 4, "pixels must match the size")
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// A `width x height` image of one colour.
    public init(width: Int, height: Int, color: RGBAColor) {
        var rgba: [UInt8] = []
        rgba.reserveCapacity(max(0, width * height * 4))
        for _ in 0..<max(0, width * height) {
            rgba += [color.red, color.green, color.blue, color.alpha]
        }
        self.init(width: width, height: height, rgba: rgba)
    }
}

extension ImagePlaceholder {
    /// The placeholder rendered to `width x height` RGBA8 pixels, from the best thing it holds:
    /// the ThumbHash (keeps alpha), else the BlurHash, else a fill of the average colour.
    /// `nil` when it holds nothing usable or the size is not positive.
    ///
    /// Decoding costs about a microsecond per pixel: ask for a small size (e.g. 32x32) and let
    /// the view scale it up; the result is blurry by nature.
    public func pixels(width: Int, height: Int) -> PlaceholderPixels? {
        guard width > 0, height > 0 else { return nil }
        if let thumbHash, let pixels = ThumbHash.decode(thumbHash, width: width, height: height) {
            return pixels
        }
        if let blurHash, let rgba = BlurHash.decode(blurHash, width: width, height: height) {
            return PlaceholderPixels(width: width, height: height, rgba: rgba)
        }
        if let averageColor {
            return PlaceholderPixels(width: width, height: height, color: averageColor)
        }
        return nil
    }

    /// The original image's approximate aspect ratio (width / height), known from a ThumbHash.
    public var aspectRatio: Double? {
        thumbHash.flatMap(ThumbHash.aspectRatio(of:))
    }
}
