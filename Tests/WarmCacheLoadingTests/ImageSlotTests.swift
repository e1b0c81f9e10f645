import Foundation
import Testing
import WarmCache
@testable import WarmCacheLoading
import WarmCacheTestSupport

/// The phases a view goes through: the first frame at once, then the result once; a replaced or
/// cancelled request's result never shown.
@MainActor @Suite(.timeLimit(.minutes(1))) struct ImageSlotTests {
    /// A slot that records every display, named for checking.
    @MainActor private final class Recorder {
        let slot: ImageSlot
        var phases: [String] = []
        var displays: [ImageDisplay] = []

        init(_ loader: ImageLoader) {
            slot = ImageSlot(loader: loader)
            slot.onDisplay = { [unowned self] display in
                displays.append(display)
                phases.append(Self.name(display))
            }
        }

        static func name(_ display: ImageDisplay) -> String {
            switch display {
            case .empty: return "empty"
            case .placeholder: return "placeholder"
            case .image(let image, let origin, let later):
                return "image \(image.pixelSize) from \(origin)\(later ? " later" : " at once")"
            case .failure: return "failure"
            }
        }

        func waitForPhases(_ count: Int) async throws {
            while phases.count < count { try await Task.sleep(nanoseconds: 1_000_000) }
        }
    }

    @Test func aBakedPlaceholderComesFirstThenTheImage() async throws {
        let recorder = Recorder(LoaderFixtures.loader(bundle: try LoaderFixtures.bundle()))
        recorder.slot.load(LoaderFixtures.request(LoaderFixtures.photo(1)))
        #expect(recorder.phases == ["placeholder"])
        guard case .placeholder(let placeholder) = recorder.slot.display else { return }
        #expect(placeholder == LoaderFixtures.placeholder)
        try await recorder.waitForPhases(2)
        #expect(recorder.phases == ["placeholder", "image 200x150 from bundle later"])
    }

    @Test func anImageInMemoryIsTheFirstFrameAndTheOnlyOne() async throws {
        let loader = LoaderFixtures.loader(bundle: try LoaderFixtures.bundle())
        let request = LoaderFixtures.request(LoaderFixtures.photo(2))
        _ = try await loader.image(for: request)
        let recorder = Recorder(loader)
        recorder.slot.load(request)
        #expect(recorder.phases == ["image 200x150 from memory at once"])
        await Task.yield()
        #expect(recorder.phases.count == 1)
    }

    @Test func withoutPlaceholderTheFirstFrameIsEmptyAndAFailureKeepsThePlaceholder() async throws {
        let server = try await FixtureServer.start(routes: ["/a.png": LoaderFixtures.served(width: 30, height: 20)])
        let recorder = Recorder(LoaderFixtures.loader(bundle: nil))
        recorder.slot.load(LoaderFixtures.request(server.url("/a.png")))
        #expect(recorder.phases == ["empty"])
        try await recorder.waitForPhases(2)
        #expect(recorder.phases == ["empty", "image 30x20 from network later"])

        recorder.slot.load(LoaderFixtures.request(server.url("/missing.png")))
        try await recorder.waitForPhases(4)
        #expect(recorder.phases.suffix(2) == ["empty", "failure"])
        if case .failure(let error, let placeholder) = recorder.slot.display {
            #expect(error.reason == .httpStatus(404) && placeholder == nil)
        }
        try await server.shutdown()
    }

    @Test func theSameRequestAgainChangesNothing() async throws {
        let recorder = Recorder(LoaderFixtures.loader(bundle: try LoaderFixtures.bundle()))
        let request = LoaderFixtures.request(LoaderFixtures.photo(1))
        recorder.slot.load(request)
        recorder.slot.load(request)
        try await recorder.waitForPhases(2)
        recorder.slot.load(request)
        #expect(recorder.phases == ["placeholder", "image 200x150 from bundle later"])
        recorder.slot.load(nil)
        #expect(recorder.phases.last == "empty" && recorder.slot.request == nil)
    }

    @Test func aReusedSlotNeverShowsThePreviousRequestsLateResult() async throws {
        let held = FixtureGate()
        let server = try await FixtureServer.start(routes: [
            "/first.png": .held(held, LoaderFixtures.served(width: 10, height: 10)),
            "/second.png": LoaderFixtures.served(width: 20, height: 20),
        ])
        let loader = LoaderFixtures.loader(bundle: nil)
        let recorder = Recorder(loader)
        let first = LoaderFixtures.request(server.url("/first.png"))
        // Another view waits for the first image too, so its work goes on and finishes.
        let elsewhere = Task.detached { try await loader.image(for: first) }
        recorder.slot.load(first)
        try await waitUntil { server.requestCount(for: "/first.png") == 1 }
        recorder.slot.load(LoaderFixtures.request(server.url("/second.png")))
        try await recorder.waitForPhases(3)
        held.open()
        #expect(try await elsewhere.value.image.pixelSize.width == 10)
        await Task.yield()
        #expect(recorder.phases == ["empty", "empty", "image 20x20 from network later"])
        try await server.shutdown()
    }

    @Test func aCancelledRequestsResultIsNeverShown() async throws {
        let held = FixtureGate()
        let server = try await FixtureServer.start(routes: ["/a.png": .held(held, LoaderFixtures.served(width: 10, height: 10))])
        let loader = LoaderFixtures.loader(bundle: nil)
        let recorder = Recorder(loader)
        let request = LoaderFixtures.request(server.url("/a.png"))
        let elsewhere = Task.detached { try await loader.image(for: request) }
        recorder.slot.load(request)
        try await waitUntil { loader.downloads.waiterCount(for: request.url) == 1
            && loader.decodes.waiterCount(for: DecodedImageKey(bytes: .url(request.url), maxPixelSize: 200)) == 2 }
        recorder.slot.cancel()
        held.open()
        _ = try await elsewhere.value
        await Task.yield()
        #expect(recorder.phases == ["empty"] && recorder.slot.request == nil)
        recorder.slot.load(request)  // loads again after a cancel: now from memory
        #expect(recorder.phases == ["empty", "image 10x10 from memory at once"])
        try await server.shutdown()
    }
}
