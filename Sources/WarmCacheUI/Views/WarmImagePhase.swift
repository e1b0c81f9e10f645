// Apple platforms only: verified by reading Apple's SwiftUI reference and by the GitHub workflow's
// Apple builds, not by this repository's Linux CI (which does not compile this file).
#if canImport(SwiftUI)
import SwiftUI

/// Where a `WarmImage` is in loading its image: the cases of SwiftUI's `AsyncImagePhase`, so a
/// `switch` written for `AsyncImage` works unchanged.
///
/// ```swift
/// WarmImage(url: photo.url, transaction: Transaction(animation: .easeIn)) { phase in
///     switch phase {
///     case .success(let image): image.resizable().scaledToFill()
///     case .failure: Image(systemName: "photo")
///     case .empty: ProgressView()   // drawn over the baked placeholder, if the bundle has one
///     }
/// }
/// ```
///
/// A baked placeholder is not a phase: while the phase is `.empty` (or `.failure`), `WarmImage`
/// draws it behind what `content` returns for that phase.
public enum WarmImagePhase {
    /// Nothing to show yet: the image is loading (or there is no URL).
    case empty
    /// The image, decoded at the view's size for the screen's scale.
    case success(Image)
    /// The image could not be loaded; the error says why, in plain words.
    case failure(any Error)

    /// The image, in the `.success` phase; `nil` otherwise.
    public var image: Image? {
        if case .success(let image) = self { return image }
        return nil
    }

    /// Why loading failed, in the `.failure` phase; `nil` otherwise.
    public var error: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
#endif
