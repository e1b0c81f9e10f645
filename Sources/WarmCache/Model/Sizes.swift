/// A size in points, as a layout system measures views. A side of `0` is unconstrained.
public struct PointSize: Hashable, Sendable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A size in pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var area: Int { width * height }
    public var description: String { "\(width)x\(height)" }
}
