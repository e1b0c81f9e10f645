import Foundation
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

/// Bundles, loaders and requests the loader's tests share.
enum LoaderFixtures {
    /// `https://cdn.example.com/photos/<n>.jpg`.
    static func photo(_ number: Int) -> URL {
        URL(string: "https://cdn.example.com/photos/\(number).jpg")!
    }

    /// A 100 × 100 pt request at scale 2 (200 px on the longest side).
    static func request(_ url: URL, side: Double = 100) -> ImageRequest {
        ImageRequest(url: url, size: PointSize(width: side, height: side), scale: 2)
    }

    /// A bundle of `count` photos, each with a 100 pt @2x (200 × 150 px) and a 400 pt @2x
    /// (800 × 600 px) variant, blobs of their own; photo 1 has an average-colour placeholder.
    static func bundle(photos count: Int = 3) throws -> CacheBundle {
        var fixture = try FixtureBundle()
        for number in 1...count {
            for (width, pixels) in [(100, PixelSize(width: 200, height: 150)), (400, PixelSize(width: 800, height: 600))] {
                let bytes = StandInImages.png(width: pixels.width, height: pixels.height) + Data("photo \(number)".utf8)
                fixture.add(photo(number).absoluteString, width: width, scale: 2, pixelSize: pixels, bytes: bytes)
            }
        }
        fixture.setPlaceholder(photo(1).absoluteString, placeholder)
        return try CacheBundle(contentsOf: try fixture.write())
    }

    static let placeholder = ImagePlaceholder(averageColor: RGBAColor(red: 200, green: 120, blue: 40))

    /// A session with no disk cache, so tests leave nothing behind.
    static func session() -> URLSession {
        URLSession(configuration: .ephemeral)
    }

    /// A loader on `bundle` with a fresh stand-in decoder and an ephemeral session.
    static func loader(bundle: (any ImageLookup)?, decoder: StandInDecoder = StandInDecoder(),
                       usesNetwork: Bool = true, decodeConcurrency: Int = 2) -> ImageLoader {
        ImageLoader(bundle: bundle, decoder: decoder,
                    configuration: .init(usesNetwork: usesNetwork, session: usesNetwork ? session() : nil,
                                         accepting: [.png, .jpeg], decodeConcurrency: decodeConcurrency))
    }

    /// A PNG header of `width` × `height` served as an image.
    static func served(width: Int, height: Int) -> FixtureRoute {
        .image(Array(StandInImages.png(width: width, height: height)), contentType: "image/png")
    }
}

/// Waits until `condition` holds, checking every millisecond: for a state another thread reaches
/// (a request arriving at the server, a waiter joining). The suites' time limits end a wait
/// that never ends.
func waitUntil(_ condition: @Sendable () -> Bool) async throws {
    while !condition() {
        try await Task.sleep(nanoseconds: 1_000_000)
    }
}

/// Whether a message is plain words: no error domain, type name or enum case.
func isPlain(_ message: String) -> Bool {
    !["Domain", "Error", "Code=", "httpStatus", "unreachable", "Reason", "Optional("].contains { message.contains($0) }
}
