// Apple platforms only: verified by reading Apple's SwiftUI reference and by the GitHub workflow's
// Apple builds, not by this repository's Linux CI (which does not compile this file).
#if canImport(SwiftUI) && canImport(ImageIO) && canImport(os)
import SwiftUI
import WarmCacheLoading

private struct ImageLoaderKey: EnvironmentKey {
    static var defaultValue: ImageLoader { .shared }
}

extension EnvironmentValues {
    /// The loader `WarmImage` views load with: ``ImageLoader/shared`` unless a view above set
    /// another with ``SwiftUI/View/imageLoader(_:)``.
    public var imageLoader: ImageLoader {
        get { self[ImageLoaderKey.self] }
        set { self[ImageLoaderKey.self] = newValue }
    }
}

extension View {
    /// Makes the `WarmImage` views inside this view load with `loader` instead of
    /// ``ImageLoader/shared``.
    ///
    /// For a bundle that is not the app's `Images.warmcache` in `Bundle.main`: a Swift package's
    /// resources, a feature module's own images, or a test's:
    ///
    /// ```swift
    /// let url = Bundle.module.url(forResource: "Images", withExtension: "warmcache")!
    /// let loader = ImageLoader(bundle: try? CacheBundle(contentsOf: url), decoder: ImageIODecoder())
    ///
    /// GalleryView()
    ///     .imageLoader(loader)
    /// ```
    ///
    /// Make the loader once (a `let` at the top level, or a property of the app) and pass the same
    /// one each time: its decoded cache lives as long as it does.
    public func imageLoader(_ loader: ImageLoader) -> some View {
        environment(\.imageLoader, loader)
    }
}
#endif
