/// A size in points, as a layout system measures views. A side of `0` is unconstrained.
public struct PointSize: Hashable, Sendable {
    /// Width in points; `0` leaves it unconstrained.
    public var width: Double
    /// Height in points; `0` leaves it unconstrained.
    public var height: Double

    /// The size of the view that shows the image, in points (not pixels: the lookup multiplies by
    /// the scale).
    ///
    /// ```swift
    /// let size = PointSize(width: imageView.bounds.width, height: imageView.bounds.height)
    /// ```
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}

/// A size in pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size in pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Width × height: the number of pixels.
    public var area: Int { Int(clamping: Int64(width) * Int64(height)) }
    /// `<width>x<height>`, e.g. `600x400`.
    public var description: String { "\(width)x\(height)" }
}
