// swift-tools-version: 6.2
//
// A SwiftUI gallery of baked images: WarmImage in a grid, a hero view on tap, and one image the
// bundle lacks, loaded from the network. README.md says how to bake its bundle and run it.
import PackageDescription

let package = Package(
    name: "WarmImageGallery",
    platforms: [.iOS(.v17), .macOS(.v14)],
    dependencies: [
        // The WarmCache checkout this example lives in. `traits: []`, as an app that only shows
        // images declares it: no other package is resolved or built. A real app writes
        // .package(url: "https://…/WarmCache.git", from: "…", traits: []) instead.
        .package(name: "WarmCache", path: "../..", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "WarmImageGallery",
            dependencies: [.product(name: "WarmCacheUI", package: "WarmCache")],
            // The whole Resources folder (in git with its README.md), so the app builds before the
            // bundle is baked; it then finds Resources/Images.warmcache in it.
            resources: [.copy("Resources")]
        ),
    ]
)
