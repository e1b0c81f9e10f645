// Apple platforms only: verified by reading Apple's SwiftUI reference (AsyncImage's initialisers)
// and by the GitHub workflow's Apple builds, not by this repository's Linux CI.
#if canImport(SwiftUI) && canImport(ImageIO) && canImport(os) && canImport(Combine)
import SwiftUI

// `AsyncImage`'s three initialisers, with the same labels, defaults and generic constraints.

extension WarmImage {
    /// The image at `url`, drawn at its decoded size, as `AsyncImage(url:scale:)` draws it.
    ///
    /// ```swift
    /// WarmImage(url: photo.url)
    ///     .frame(width: 200, height: 200)
    /// ```
    ///
    /// The image is decoded to fit the view's longest side, so at its own size it is never larger
    /// than the view's longest side. Until it loads the view shows the baked placeholder stretched
    /// over its whole area, or a faint grey when the bundle has none (and after a failure).
    ///
    /// - Parameters:
    ///   - url: The image's URL, as the manifest lists it; `nil` shows the grey.
    ///   - scale: Accepted so that `AsyncImage` code compiles unchanged, and not used: images are
    ///     decoded for the view's size at the screen's scale (`displayScale`).
    public init(url: URL?, scale: CGFloat = 1) where Content == Image {
        self.init(url: url, transaction: WarmImageFade.transaction, drawsPlaceholderBehind: false) { phase, baked in
            phase.image ?? baked?.resizable() ?? WarmImageFade.emptyImage.resizable()
        }
    }

    /// The image at `url` passed to `content` once loaded; `placeholder` until then, for URLs the
    /// bundle lacks.
    ///
    /// ```swift
    /// WarmImage(url: photo.url) { image in
    ///     image.resizable().scaledToFill()
    /// } placeholder: {
    ///     ProgressView()
    /// }
    /// .frame(width: 120, height: 120)
    /// .clipped()
    /// ```
    ///
    /// For a URL the bundle has, `content` is also given the baked placeholder (a small blurred
    /// image) until the image is there, so it is laid out, resized and clipped as the image will be;
    /// the image then fades in. `placeholder` is shown only when there is nothing baked: a URL the
    /// bundle lacks (while it downloads, and if the download fails) or a `nil` URL.
    ///
    /// - Parameters:
    ///   - url: The image's URL, as the manifest lists it.
    ///   - scale: Accepted so that `AsyncImage` code compiles unchanged, and not used.
    ///   - content: The view for the image (or the baked placeholder).
    ///   - placeholder: The view while a URL with nothing baked loads.
    public init<I: View, P: View>(url: URL?, scale: CGFloat = 1,
                                  @ViewBuilder content: @escaping (Image) -> I,
                                  @ViewBuilder placeholder: @escaping () -> P)
    where Content == _ConditionalContent<I, P> {
        self.init(url: url, transaction: WarmImageFade.transaction, drawsPlaceholderBehind: false) { phase, baked in
            guard let image = phase.image ?? baked else { return ViewBuilder.buildEither(second: placeholder()) }
            return ViewBuilder.buildEither(first: content(image))
        }
    }

    /// The view `content` returns for each loading phase, changed within `transaction`.
    ///
    /// ```swift
    /// WarmImage(url: photo.url, transaction: Transaction(animation: .easeIn)) { phase in
    ///     switch phase {
    ///     case .success(let image): image.resizable().scaledToFill()
    ///     case .failure: Image(systemName: "photo")
    ///     case .empty: ProgressView()
    ///     }
    /// }
    /// ```
    ///
    /// The phases are `AsyncImage`'s. For a URL the bundle has, the first phase is `.success` when
    /// the decoded image is in memory; otherwise `.empty`, and `WarmImage` draws the baked
    /// placeholder behind what `content` returns for `.empty` (and for `.failure`), filling the
    /// view: return a clear or translucent view for those phases to let it show.
    ///
    /// - Parameters:
    ///   - url: The image's URL, as the manifest lists it.
    ///   - scale: Accepted so that `AsyncImage` code compiles unchanged, and not used.
    ///   - transaction: The transaction for phase changes after the first frame, as
    ///     `AsyncImage` uses it: the default has no animation; pass one with an animation to fade.
    ///   - content: The view for a phase.
    public init(url: URL?, scale: CGFloat = 1, transaction: Transaction = Transaction(),
                @ViewBuilder content: @escaping (WarmImagePhase) -> Content) {
        self.init(url: url, transaction: transaction, drawsPlaceholderBehind: true) { phase, _ in
            content(phase)
        }
    }
}

/// How the initialisers without a transaction bring an image in, and what they show with nothing.
enum WarmImageFade {
    /// A quarter-second cross-fade from the placeholder to the image.
    static var transaction: Transaction { Transaction(animation: .easeInOut(duration: 0.25)) }

    /// A faint grey, as `AsyncImage` shows while it loads.
    @MainActor static let emptyImage: Image = PlaceholderDrawing.empty.map { Image(decorative: $0, scale: 1) }
        ?? Image(systemName: "photo")
}
#endif
