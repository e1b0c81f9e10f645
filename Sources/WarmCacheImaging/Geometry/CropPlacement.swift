import WarmCache

/// Where a compass gravity places a crop window inside a larger image.
enum CropPlacement {
    /// The top-left corner of a `crop`-sized window inside `image`, pushed towards `gravity`.
    /// Centred axes split the overflow evenly (the extra pixel of an odd overflow goes right/down).
    ///
    /// `attention` and `entropy` are not compass gravities; they are handled by libvips' smart
    /// crop and fall back to the centre here.
    static func origin(of crop: PixelSize, in image: PixelSize, gravity: CropGravity) -> PixelPoint {
        let spareX = max(0, image.width - crop.width)
        let spareY = max(0, image.height - crop.height)
        let x: Int
        let y: Int
        switch gravity {
        case .west, .northwest, .southwest: x = 0
        case .east, .northeast, .southeast: x = spareX
        default: x = spareX / 2
        }
        switch gravity {
        case .north, .northwest, .northeast: y = 0
        case .south, .southwest, .southeast: y = spareY
        default: y = spareY / 2
        }
        return PixelPoint(x: x, y: y)
    }
}
