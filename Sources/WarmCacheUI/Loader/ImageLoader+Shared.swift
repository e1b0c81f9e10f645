// Apple platforms only: verified by reading Apple's Foundation and os reference and by the GitHub
// workflow's Apple builds, not by this repository's Linux CI (which does not compile this file).
#if canImport(ImageIO) && canImport(os)
import Foundation
import os
import WarmCache
import WarmCacheLoading

extension ImageLoader {
    /// The loader views use unless told otherwise (`WarmImage`, `setWarmImage(url:)`): the app's
    /// baked `Images.warmcache` in `Bundle.main`, decoded with ``ImageIODecoder``, with the network
    /// for URLs the bundle lacks.
    ///
    /// Made at first use. Without an `Images.warmcache` in the main bundle (or when it cannot be
    /// opened, which is logged), it loads from the network only. Set it once, before the first
    /// view appears, to use another bundle or configuration:
    ///
    /// ```swift
    /// @main struct GalleryApp: App {
    ///     init() {
    ///         let url = Bundle.module.url(forResource: "Images", withExtension: "warmcache")!
    ///         ImageLoader.shared = ImageLoader(bundle: try? CacheBundle(contentsOf: url), decoder: ImageIODecoder())
    ///     }
    ///     var body: some Scene { WindowGroup { ContentView() } }
    /// }
    /// ```
    ///
    /// Reading and setting it are safe from any thread. Views that already hold the previous
    /// loader keep it; for a part of a SwiftUI hierarchy, `.imageLoader(_:)` is the finer tool.
    public static var shared: ImageLoader {
        get { SharedLoader.storage.loader(orMake: SharedLoader.makeDefault) }
        set { SharedLoader.storage.set(newValue) }
    }
}

/// Where ``ImageLoader/shared`` lives: made once, at first use, under a lock.
private enum SharedLoader {
    static let storage = Storage()

    final class Storage: @unchecked Sendable {
        private let lock = NSLock()
        private var loader: ImageLoader?

        func loader(orMake make: () -> ImageLoader) -> ImageLoader {
            lock.lock()
            defer { lock.unlock() }
            if let loader { return loader }
            let made = make()
            loader = made
            return made
        }

        func set(_ newValue: ImageLoader) {
            lock.lock()
            loader = newValue
            lock.unlock()
        }
    }

    /// The app's `Images.warmcache` in the main bundle, if it is there and opens.
    static func makeDefault() -> ImageLoader {
        ImageLoader(bundle: openMainBundleImages(), decoder: ImageIODecoder())
    }

    private static func openMainBundleImages() -> CacheBundle? {
        guard let url = Bundle.main.url(forResource: "Images", withExtension: "warmcache") else { return nil }
        do {
            return try CacheBundle(contentsOf: url)
        } catch {
            let reason = PlainReason.of(error)
            Logger(subsystem: "WarmCache", category: "ImageLoader").error(
                "Images.warmcache in the app cannot be opened, so images load from the network only: \(reason, privacy: .public)")
            return nil
        }
    }
}
#endif
