// swift-tools-version: 6.2
//
// A small app that uses WarmCache the way a real one does: `swift package warm-cache` bakes the
// images of warm-cache.yml into Sources/ConsumerApp/Resources/Images.warmcache, and the app opens
// that bundle from its resources with the runtime library. See ../../docs/plugin.md.
import PackageDescription

let package = Package(
    name: "ConsumerApp",
    platforms: [.macOS(.v13), .iOS(.v15)],
    dependencies: [
        // The WarmCache checkout this example lives in. A real app writes
        // .package(url: "https://…/WarmCache.git", from: "…") instead.
        .package(name: "WarmCache", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "ConsumerApp",
            dependencies: [.product(name: "WarmCache", package: "WarmCache")],
            // The whole Resources folder, not Resources/Images.warmcache: the folder is in git (with
            // its README.md), so the package resolves and builds in a fresh clone before the plugin
            // has ever written the bundle. The app then finds Resources/Images.warmcache in it.
            resources: [.copy("Resources")]
        ),
    ]
)
