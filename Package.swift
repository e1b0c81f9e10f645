// swift-tools-version: 6.2
//
// WarmCache: bake remote images into an offline, content-addressed bundle at build time.
//
//   WarmCache          runtime loader library apps link (Foundation + SQLite only)
//   WarmCacheUpdates   over-the-air updates of a bundle from static files (adds swift-crypto, URLSession)
//   WarmCacheUI        WarmImage (SwiftUI) and image-view extensions (UIKit, AppKit) on WarmCacheLoading
//   WarmCacheLoading   the platform-neutral image loader: bundle, decoded-image cache, network fallback
//   WarmCacheImaging   libvips engine: decode once, size, encode, placeholders
//   WarmCacheBuilder   manifest, fetching, bundle writing, the warm pipeline
//   warm-cache         the command-line front end (ArgumentParser)
//   WarmCachePlugin    `swift package warm-cache`: runs the CLI in a package (docs/plugin.md)
//
// Traits keep an app's dependency graph small (docs/platforms.md compares the alternatives):
//   Builder       (default) the builder, the CLI, the plugin, their tests and benchmarks: every
//                 package below but swift-crypto's use by WarmCacheUpdates.
//   SwiftCrypto   WarmCacheUpdates checks signatures with swift-crypto instead of CryptoKit, which
//                 only Apple platforms have (Builder enables it).
// An app that links only the runtime writes `traits: []` on its dependency and resolves no
// package at all for WarmCache and WarmCacheUpdates on Apple platforms.
import PackageDescription

/// A dependency only the builder side (trait `Builder`) uses.
func builder(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Builder"]))
}

let package = Package(
    name: "WarmCache",
    // The runtime's minimums; the builder and CLI run on macOS 13 or later (docs/platforms.md).
    platforms: [.iOS(.v15), .macOS(.v13), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "WarmCache", targets: ["WarmCache"]),
        .library(name: "WarmCacheUpdates", targets: ["WarmCacheUpdates"]),
        .library(name: "WarmCacheUI", targets: ["WarmCacheUI"]),
        .library(name: "WarmCacheBuilder", targets: ["WarmCacheBuilder"]),
        .executable(name: "warm-cache", targets: ["warm-cache"]),
        .plugin(name: "WarmCachePlugin", targets: ["WarmCachePlugin"]),
    ],
    traits: [
        .trait(name: "Builder", description: "The warm-cache tool, its plugin and the builder library",
               enabledTraits: ["SwiftCrypto"]),
        .trait(name: "SwiftCrypto",
               description: "WarmCacheUpdates verifies with swift-crypto (needed where CryptoKit is missing: Linux)"),
        .default(enabledTraits: ["Builder"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // Only for `swift package generate-documentation` (the DocC catalogs of WarmCache and
        // WarmCacheUpdates); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // MARK: System libraries
        // SQLite from the SDK on Apple platforms (libsqlite3-dev's headers on Linux): no pkg-config,
        // which would put Homebrew's macOS library into iOS and watchOS links.
        .systemLibrary(name: "CSQLite"),
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // libwebp and libjpeg, which the shim calls directly for quality-search trials. Through
        // pkg-config, not a bare linked library: SwiftPM then passes their `-L` (Homebrew's
        // /opt/homebrew/lib is no default linker path on Apple Silicon).
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]
        ),
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]
        ),
        // libheif, which the shim calls directly to write HEIC with its colours signalled.
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"]), .brew(["libheif"])]
        ),
        // libavif (with libaom), which the shim calls to write AVIF: it reaches libaom's options, and
        // without rectangular partitions an AVIF takes under half the CPU for ~2 % more bytes (docs/performance.md).
        .systemLibrary(
            name: "CAvif",
            pkgConfig: "libavif",
            providers: [.apt(["libavif-dev"]), .brew(["libavif"])]
        ),
        // Fixed-argument wrappers around libvips' variadic C API (Swift cannot call variadics).
        // gmodule sits beside glib, whose `-L` vips.pc already gives.
        .target(name: "CVipsShim", dependencies: ["CVips", "CWebP", "CJPEG", "CHeif", "CAvif"],
                linkerSettings: [.linkedLibrary("gmodule-2.0")]),

        // MARK: Runtime
        .target(name: "WarmCache", dependencies: ["CSQLite"]),
        // Downloads only what changed from a bundle served as static files; its own product so the
        // reader above stays Foundation + SQLite. Crypto is CryptoKit on Apple platforms.
        .target(
            name: "WarmCacheUpdates",
            dependencies: [
                "WarmCache",
                // Off Apple platforms only: there CryptoKit has the same API (Crypto.swift).
                .product(name: "Crypto", package: "swift-crypto",
                         condition: .when(platforms: [.linux, .android, .windows, .wasi, .openbsd], traits: ["SwiftCrypto"])),
            ]
        ),

        // The loader views use: which source answers (decoded cache, bundle, network), decoding at the
        // view's size through a decoder the platform gives, coalescing and cancellation. No UI framework,
        // so Linux tests it whole with a stand-in decoder.
        .target(name: "WarmCacheLoading", dependencies: ["WarmCache"]),
        // The thin Apple layer on the loader: ImageIO decoding, WarmImage (SwiftUI), UIImageView and
        // NSImageView extensions. Behind `canImport`: on Linux it compiles to the re-exports alone.
        .target(name: "WarmCacheUI", dependencies: ["WarmCache", "WarmCacheLoading"]),

        // MARK: Builder
        .target(
            name: "WarmCacheImaging",
            dependencies: [
                "WarmCache",
                "CVipsShim",
            ]
        ),
        .target(
            name: "WarmCacheBuilder",
            dependencies: [
                "WarmCache",
                "WarmCacheImaging",
                builder("Yams", "Yams"),
                builder("AsyncHTTPClient", "async-http-client"),
                builder("NIOCore", "swift-nio"),
                builder("NIOPosix", "swift-nio"),
                builder("NIOHTTP1", "swift-nio"),
                builder("NIOSSL", "swift-nio-ssl"),
                builder("Crypto", "swift-crypto"),
                builder("Logging", "swift-log"),
            ]
        ),
        .executableTarget(
            name: "warm-cache",
            dependencies: [
                "WarmCacheBuilder",
                "WarmCacheImaging",
                "WarmCacheUpdates",
                builder("ArgumentParser", "swift-argument-parser"),
                builder("Logging", "swift-log"),
            ]
        ),

        // MARK: Plugin
        // No dependency on the `warm-cache` target: the plugin builds the product itself with
        // packageManager.build, which shares the package's build folder (docs/plugin.md has the figures).
        .plugin(
            name: "WarmCachePlugin",
            capability: .command(
                intent: .custom(
                    verb: "warm-cache",
                    description: "Bake the images of warm-cache.yml into an offline bundle (any warm-cache subcommand)"),
                permissions: [
                    .writeToPackageDirectory(
                        reason: "Writes the image bundle (e.g. Sources/App/Resources/Images.warmcache) and keeps "
                            + "downloaded originals in .build/warm-cache"),
                    .allowNetworkConnections(
                        scope: .all(ports: []),
                        reason: "Downloads the images the manifest lists from their servers"),
                ]
            )
        ),

        // MARK: Benchmarks (run with `swift run -c release warm-cache-bench`; README.md#figures lists them and their figures)
        .executableTarget(
            name: "warm-cache-bench",
            dependencies: [
                "WarmCacheBuilder",
                "WarmCacheLoading",
                "WarmCacheTestSupport",
                "CVipsShim",
                builder("ArgumentParser", "swift-argument-parser"),
            ],
            path: "Benchmarks/warm-cache-bench"
        ),

        // MARK: Tests
        // Fixture HTTP server on 127.0.0.1 and helpers shared by the test suites and benchmarks.
        .target(
            name: "WarmCacheTestSupport",
            dependencies: [
                "WarmCacheLoading",
                builder("NIOCore", "swift-nio"),
                builder("NIOPosix", "swift-nio"),
                builder("NIOHTTP1", "swift-nio"),
            ],
            path: "Tests/WarmCacheTestSupport"
        ),
        .testTarget(name: "WarmCacheTests", dependencies: ["WarmCache"]),
        .testTarget(name: "WarmCacheLoadingTests",
                    dependencies: ["WarmCacheLoading", "WarmCacheTestSupport"]),
        // The views' sizing everywhere; WarmImage rendered with ImageRenderer, the image views and the
        // ImageIO decoder on macOS only (the GitHub workflow). Fixtures/ holds a tiny baked bundle
        // the tests find by #filePath.
        .testTarget(name: "WarmCacheUITests", dependencies: ["WarmCacheUI"], exclude: ["Fixtures"]),
        .testTarget(name: "WarmCacheImagingTests", dependencies: ["WarmCacheImaging", "CVipsShim"]),
        .testTarget(
            name: "WarmCacheBuilderTests",
            dependencies: [
                "WarmCacheBuilder", "WarmCacheTestSupport", "CSQLite",
                builder("Logging", "swift-log"),
            ]
        ),
        .testTarget(
            name: "WarmCacheUpdatesTests",
            dependencies: ["WarmCacheUpdates", "WarmCacheBuilder", "WarmCacheTestSupport"]
        ),
        // The plugin's argument logic (its files are links into Plugins/WarmCachePlugin; ExitStatus and
        // ManifestEnvironment are the CLI's own, which the plugin links too).
        .testTarget(name: "WarmCachePluginTests"),
        .testTarget(
            name: "WarmCacheEndToEndTests",
            dependencies: [
                "WarmCache", "WarmCacheBuilder", "WarmCacheImaging", "WarmCacheUpdates", "WarmCacheTestSupport",
                "WarmCacheLoading",
                builder("Logging", "swift-log"),
                // The HTTP stack's errors, to check the fetcher's words for them.
                builder("AsyncHTTPClient", "async-http-client"),
                builder("NIOCore", "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ]
)
