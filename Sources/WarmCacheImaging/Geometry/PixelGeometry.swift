import WarmCache

extension PixelSize {
    /// `width x height` with each side scaled by `scale` and rounded, never below 1 pixel.
    func scaled(by scale: Double) -> PixelSize {
        PixelSize(width: Self.round(Double(width) * scale), height: Self.round(Double(height) * scale))
    }

    /// Rounds a length to whole pixels (halves away from zero), at least 1.
    static func round(_ length: Double) -> Int {
        max(1, Int(length.rounded()))
    }
}

/// A pixel position, origin at the top left.
public struct PixelPoint: Hashable, Sendable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }
}

/// A rectangle of pixels, origin at the top left.
public struct PixelRect: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
}
