// swift-tools-version: 6.0
//
// WarmCache: bake remote images into an offline, content-addressed bundle at build time.
//
//   WarmCache          runtime loader library apps link (Foundation + SQLite only)
//   WarmCacheUpdates   over-the-air updates of a bundle from static files (adds swift-crypto, URLSession)
//   WarmCacheImaging   libvips engine: decode once, size, encode, placeholders
//   WarmCacheBuilder   manifest, fetching, bundle writing, the warm pipeline
//   warm-cache         the command-line front end (ArgumentParser)
//   WarmCachePlugin    `swift package warm-cache`: runs the CLI in a package (docs/plugin.md)
import PackageDescription

let package = Package(
    name: "WarmCache",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "WarmCache", targets: ["WarmCache"]),
        .library(name: "WarmCacheUpdates", targets: ["WarmCacheUpdates"]),
        .library(name: "WarmCacheBuilder", targets: ["WarmCacheBuilder"]),
        .executable(name: "warm-cache", targets: ["warm-cache"]),
        .plugin(name: "WarmCachePlugin", targets: ["WarmCachePlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Only for `swift package generate-documentation` (the DocC catalogs of WarmCache and
        // WarmCacheUpdates); no target depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // MARK: System libraries
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"]), .brew(["vips"])]
        ),
        // Fixed-argument wrappers around libvips' variadic C API (Swift cannot call variadics).
        .target(name: "CVipsShim", dependencies: ["CVips"],
                linkerSettings: [.linkedLibrary("gmodule-2.0"), .linkedLibrary("webp"), .linkedLibrary("jpeg")]),

        // MARK: Runtime
        .target(name: "WarmCache", dependencies: ["CSQLite"]),
        // Downloads only what changed from a bundle served as static files; its own product so the
        // reader above stays Foundation + SQLite. Crypto is CryptoKit on Apple platforms.
        .target(
            name: "WarmCacheUpdates",
            dependencies: ["WarmCache", .product(name: "Crypto", package: "swift-crypto")]
        ),

        // MARK: Builder
        .target(
            name: "WarmCacheImaging",
            dependencies: [
                "WarmCache",
                "CVipsShim",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "WarmCacheBuilder",
            dependencies: [
                "WarmCache",
                "WarmCacheImaging",
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "warm-cache",
            dependencies: [
                "WarmCacheBuilder",
                "WarmCacheImaging",
                "WarmCacheUpdates",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
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

        // MARK: Benchmarks (run with `swift run -c release warm-cache-bench`; README.md#performance lists them and their figures)
        .executableTarget(
            name: "warm-cache-bench",
            dependencies: [
                "WarmCacheBuilder",
                "WarmCacheTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/warm-cache-bench"
        ),

        // MARK: Tests
        // Fixture HTTP server on 127.0.0.1 and helpers shared by the test suites and benchmarks.
        .target(
            name: "WarmCacheTestSupport",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/WarmCacheTestSupport"
        ),
        .testTarget(name: "WarmCacheTests", dependencies: ["WarmCache"]),
        .testTarget(name: "WarmCacheImagingTests", dependencies: ["WarmCacheImaging", "CVipsShim"]),
        .testTarget(
            name: "WarmCacheBuilderTests",
            dependencies: [
                "WarmCacheBuilder", "WarmCacheTestSupport", "CSQLite",
                .product(name: "Logging", package: "swift-log"),
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
                .product(name: "Logging", package: "swift-log"),
                // The HTTP stack's errors, to check the fetcher's words for them.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ]
)
