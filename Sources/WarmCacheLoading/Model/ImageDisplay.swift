import WarmCache

/// What one view shows at a moment; ``ImageSlot`` says it, and the SwiftUI view and the
/// image-view extensions draw it.
///
/// ```swift
/// slot.onDisplay = { display in
///     switch display {
///     case .empty: imageView.image = nil
///     case .placeholder(let placeholder): imageView.image = render(placeholder)
///     case .image(let image, _, let arrivedLater): show(image, fading: arrivedLater)
///     case .failure(_, let placeholder): imageView.image = placeholder.map(render)
///     }
/// }
/// ```
public enum ImageDisplay: Sendable {
    /// Nothing in memory and nothing baked: loading, with nothing to show yet.
    case empty
    /// The baked stand-in (ThumbHash, BlurHash or average colour) while the image loads.
    case placeholder(ImagePlaceholder)
    /// The image; `arrivedLater` is `false` when it was in memory for the first frame, `true` when
    /// it came after (fade it in then, not on a cell scrolled back into view).
    case image(DecodedImage, origin: ImageOrigin, arrivedLater: Bool)
    /// The load failed: the error in plain words, and the placeholder, if any, to keep showing.
    case failure(ImageLoadingError, placeholder: ImagePlaceholder?)
}
