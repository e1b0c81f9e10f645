// The gallery's entry point: a SwiftUI app (macOS 14, iOS 17) whose images come from the bundle
// baked into its resources. Built by the GitHub workflow's macOS job; SwiftUI does not exist on
// Linux, so nothing in the repository's Linux flow builds it.
import SwiftUI
import WarmCacheUI

@main
struct GalleryApp: App {
    /// The loader for this target's own bundle (`Bundle.module`, not the app's main bundle, which
    /// is where `ImageLoader.shared` looks), given to the views with `.imageLoader(_:)`.
    private let loader = GalleryApp.makeLoader()

    var body: some Scene {
        WindowGroup("WarmImage Gallery") {
            GalleryView()
                .imageLoader(loader)
        }
    }

    private static func makeLoader() -> ImageLoader {
        let url = Bundle.module.url(forResource: "Images", withExtension: "warmcache", subdirectory: "Resources")
        guard let url else {
            print("""
                WarmImageGallery: no Images.warmcache in the app's resources, so every image comes from the \
                network. Bake it from the repository's root, then build again:
                  swift run warm-cache Examples/WarmImageGallery/warm-cache.yml
                """)
            return ImageLoader(bundle: nil, decoder: ImageIODecoder())
        }
        do {
            return ImageLoader(bundle: try CacheBundle(contentsOf: url), decoder: ImageIODecoder())
        } catch {
            print("WarmImageGallery: \(url.path) cannot be opened (\(error)); images come from the network.")
            return ImageLoader(bundle: nil, decoder: ImageIODecoder())
        }
    }
}
