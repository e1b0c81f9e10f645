// WarmImage drawn by SwiftUI's ImageRenderer, and NSImageView's setWarmImage(url:): macOS only,
// run by the GitHub workflow's macOS job (`swift test`). On Linux only ViewSizingTests runs.
//
// The fixture bundle (Fixtures/Split.warmcache, baked from Fixtures/warm-cache.yml) holds one 64x32
// image, red on its left half and blue on its right, whose placeholder is its average colour: a
// purple neither half has, so a pixel tells the placeholder from the image.
#if os(macOS) && canImport(SwiftUI)
import AppKit
import SwiftUI
import Testing
import WarmCacheUI

@MainActor
@Suite struct WarmImageRenderingTests {
    let fixture: SplitFixture

    init() throws {
        fixture = try SplitFixture()
    }

    @Test func firstFrameOfAnImageNotInMemoryIsTheBakedPlaceholder() throws {
        let loader = fixture.loader()
        let view = WarmImage(url: SplitFixture.url) { $0.resizable() } placeholder: { Color.green }
        let rendered = try render(view, loader: loader)

        let purple = try fixture.averageColor()
        #expect(Pixels.color(in: rendered, x: 16, y: 16).isClose(to: purple))
        #expect(Pixels.color(in: rendered, x: 48, y: 16).isClose(to: purple))
    }

    @Test func firstFrameOfAnImageInMemoryIsTheBakedImage() async throws {
        let loader = fixture.loader()
        _ = try await loader.image(for: SplitFixture.request)
        let view = WarmImage(url: SplitFixture.url) { $0.resizable() } placeholder: { Color.green }
        let rendered = try render(view, loader: loader)

        #expect(Pixels.color(in: rendered, x: 16, y: 16).isClose(to: Pixels.red))
        #expect(Pixels.color(in: rendered, x: 48, y: 16).isClose(to: Pixels.blue))
    }

    @Test func phaseInitialiserDrawsThePlaceholderBehindEmptyThenTheImage() async throws {
        let loader = fixture.loader()
        let purple = try fixture.averageColor()
        let before = try render(phaseView(), loader: loader)
        #expect(Pixels.color(in: before, x: 16, y: 16).isClose(to: purple))

        _ = try await loader.image(for: SplitFixture.request)
        let after = try render(phaseView(), loader: loader)
        #expect(Pixels.color(in: after, x: 16, y: 16).isClose(to: Pixels.red))
        #expect(Pixels.color(in: after, x: 48, y: 16).isClose(to: Pixels.blue))
    }

    @Test func aURLWithNothingBakedShowsTheCallersPlaceholder() throws {
        let loader = fixture.loader()
        let missing = URL(string: "https://fixtures.warmcache.invalid/missing.png")
        let view = WarmImage(url: missing) { $0.resizable() } placeholder: { Color(red: 0, green: 1, blue: 0) }
        let rendered = try render(view, loader: loader)

        #expect(Pixels.color(in: rendered, x: 32, y: 16).isClose(to: Pixels.green))
    }

    @Test func imageViewShowsThePlaceholderAtOnce() throws {
        let loader = fixture.loader()
        let imageView = NSImageView(frame: NSRect(x: 0, y: 0, width: 64, height: 32))
        imageView.setWarmImage(url: SplitFixture.url, loader: loader)

        let shown = try #require(imageView.image?.cgImage(forProposedRect: nil, context: nil, hints: nil))
        let purple = try fixture.averageColor()
        #expect(Pixels.color(in: shown, x: shown.width / 2, y: shown.height / 2).isClose(to: purple))
    }

    @Test func imageViewGivenAnotherURLDropsThePreviousImageAtOnce() async throws {
        let loader = fixture.loader()
        // In memory at both scales a Mac's screen has, so the view shows the image itself at once.
        for scale in [1.0, 2.0] {
            _ = try await loader.image(for: ImageRequest(url: SplitFixture.url, size: SplitFixture.request.size,
                                                         scale: scale))
        }
        let imageView = NSImageView(frame: NSRect(x: 0, y: 0, width: 64, height: 32))
        imageView.setWarmImage(url: SplitFixture.url, loader: loader)
        let shown = try #require(imageView.image?.cgImage(forProposedRect: nil, context: nil, hints: nil))
        #expect(Pixels.color(in: shown, x: shown.width / 4, y: shown.height / 2).isClose(to: Pixels.red))

        // Reused for a row whose image is not baked: the previous row's image goes at once.
        imageView.setWarmImage(url: URL(string: "https://fixtures.warmcache.invalid/missing.png"), loader: loader)
        #expect(imageView.image == nil)
    }

    private func phaseView() -> some View {
        WarmImage(url: SplitFixture.url) { phase in
            if let image = phase.image { image.resizable() } else { Color.clear }
        }
    }

    /// The view in a 64x32-point frame, drawn at scale 1 with `loader`.
    private func render(_ view: some View, loader: ImageLoader) throws -> CGImage {
        let framed = view
            .frame(width: 64, height: 32)
            .imageLoader(loader)
            .environment(\.displayScale, 1)
        let renderer = ImageRenderer(content: framed)
        renderer.scale = 1
        return try #require(renderer.cgImage)
    }
}
#endif
