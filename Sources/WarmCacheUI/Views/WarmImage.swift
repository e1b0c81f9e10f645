// Apple platforms only: verified by reading Apple's SwiftUI reference and by the GitHub workflow's
// Apple builds and macOS tests, not by this repository's Linux CI (which does not compile this file).
#if canImport(SwiftUI) && canImport(ImageIO) && canImport(os) && canImport(Combine)
import SwiftUI
import WarmCacheLoading

/// `AsyncImage` for baked images: the same initialisers, the image decoded at the view's size from
/// the app's bundle, the network for the rest, and never an empty first frame.
///
/// Adopt it by changing one word:
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
/// What differs from `AsyncImage` (docs/views.md has the details):
/// - **Size.** `WarmImage` takes the whole size its parent proposes, as `Color` or a resizable
///   image does, and asks the loader for an image of that size at the screen's `displayScale`.
///   Give it a frame, or an aspect ratio in a scroll view or grid (which propose no height).
/// - **First frame.** For a URL the bundle has, the first frame is the decoded image when it is in
///   memory (no transition), else the baked placeholder (ThumbHash, BlurHash or average colour)
///   passed through your `content` closure, so it is sized and clipped like the image. Your
///   `placeholder` shows only for URLs the bundle lacks, while they download.
/// - **Arrival.** An image that arrives later fades in (the phase initialiser uses its
///   `transaction` instead, as `AsyncImage` does).
/// - **Loader.** ``ImageLoader/shared`` unless ``SwiftUI/View/imageLoader(_:)`` gives another.
///
/// Loading starts when the view appears, and is cancelled when it disappears or when its URL or
/// size changes.
public struct WarmImage<Content: View>: View {
    private let url: URL?
    private let transaction: Transaction
    /// Whether the baked placeholder is drawn behind `content` (the phase initialiser) rather than
    /// passed to it.
    private let drawsPlaceholderBehind: Bool
    /// The view for a phase and the baked placeholder, if there is one to show.
    private let render: @MainActor (WarmImagePhase, Image?) -> Content

    @StateObject private var model = WarmImageModel()
    @Environment(\.imageLoader) private var loader
    @Environment(\.displayScale) private var displayScale

    /// The view every public initialiser makes (WarmImage+Initialisers.swift).
    init(url: URL?, transaction: Transaction, drawsPlaceholderBehind: Bool,
         render: @escaping @MainActor (WarmImagePhase, Image?) -> Content) {
        self.url = url
        self.transaction = transaction
        self.drawsPlaceholderBehind = drawsPlaceholderBehind
        self.render = render
    }

    public var body: some View {
        GeometryReader { proxy in
            let request = loaderRequest(in: proxy.size)
            let shown = model.frame(for: request, loader: loader)
            layers(for: shown, size: proxy.size)
                .frame(width: proxy.size.width, height: proxy.size.height)
                .task(id: request) {
                    model.start(request, loader: loader, transaction: transaction)
                    await waitUntilCancelled()
                    model.stop(request)
                }
        }
    }

    /// The loader's request for a view of `size` points; `nil` without a URL, and while layout
    /// has given the view no area (nothing would be seen, and a zero size means "full size").
    private func loaderRequest(in size: CGSize) -> ImageRequest? {
        let (width, height) = (Double(size.width), Double(size.height))
        guard ViewSizing.isVisible(width: width, height: height) else { return nil }
        return ViewSizing.request(url: url, width: width, height: height, scale: Double(displayScale))
    }

    @ViewBuilder
    private func layers(for shown: WarmImageModel.Shown, size: CGSize) -> some View {
        let phase = currentPhase(of: shown)
        let baked = shown.display.bakedPlaceholder.flatMap { PlaceholderDrawing.cgImage(for: $0) }.map {
            Image(decorative: $0, scale: 1)
        }
        ZStack {
            if drawsPlaceholderBehind, let baked {
                baked.resizable().scaledToFill()
                    .frame(width: size.width, height: size.height)
                    .clipped()
            }
            // A new identity when the image replaces a stand-in, so that the change is a
            // transition (a cross-fade by default) within the transaction that brought it.
            render(phase, drawsPlaceholderBehind ? nil : baked)
                .id(phase.image == nil ? 0 : 1)
        }
    }

    private func currentPhase(of shown: WarmImageModel.Shown) -> WarmImagePhase {
        switch shown.display {
        case .image(let decoded, _, _):
            guard let cgImage = decoded.cgImage else { return .empty }
            return .success(Image(decorative: cgImage, scale: CGFloat(shown.imageScale)))
        case .failure(let error, _):
            return .failure(error)
        default:
            return .empty
        }
    }
}

/// Returns when the calling task is cancelled: a view's load lives as long as its task.
private func waitUntilCancelled() async {
    while !Task.isCancelled {
        try? await Task.sleep(nanoseconds: 3_600_000_000_000)
    }
}
#endif
