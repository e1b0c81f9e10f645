import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// The compact headers of jobs and replies: every field comes back as written, and a header cut
/// short or malformed is a broken pipe, never a wrong value.
@Suite struct WireHeaderTests {
    func roundTrip<Header: WireHeader>(_ header: Header) throws -> Header {
        var writer = WireWriter()
        header.write(to: &writer)
        var reader = WireReader(writer.bytes)
        return try Header(from: &reader)
    }

    func bytes(_ header: some WireHeader) -> [UInt8] {
        var writer = WireWriter()
        header.write(to: &writer)
        return writer.bytes
    }

    @Test func jobsComeBackAsWritten() throws {
        let set = ImagingWire.SpecSet(specs: [[VariantSpec(width: 64, height: 64, format: .jpeg)]],
                                      alphaSpecs: [[VariantSpec(width: 64, height: 64, format: .webp)],
                                                   [VariantSpec(width: 32, height: 32, format: .avif, qualityTarget: 80),
                                                    VariantSpec(width: 32, height: 32, format: .webp, qualityTarget: 80)]])
        for job in [
            ImagingWire.Job(name: "https://example.com/é|x.jpg", specSet: 3, newSpecSet: set, placeholder: 5),
            ImagingWire.Job(name: "", specSet: 0, newSpecSet: nil, placeholder: 0),
            ImagingWire.Job(name: "beyond the limit", specSet: nil, newSpecSet: set, placeholder: 1),
        ] {
            let back = try roundTrip(job)
            #expect(back.name == job.name && back.specSet == job.specSet && back.placeholder == job.placeholder)
            #expect(back.newSpecSet == job.newSpecSet)
        }
    }

    @Test func repliesComeBackAsWritten() throws {
        let info = SourceImageInfo(format: nil, loader: "tiff", pixelWidth: 320, pixelHeight: 240, orientation: 6,
                                   hasAlpha: true, pageCount: 3, isAnimated: true, hasICCProfile: true,
                                   colorModel: .cmyk, byteCount: 123_456)
        var full = ImagingWire.Reply()
        full.info = info
        full.variants = [.init(pixelWidth: 64, pixelHeight: 48, hasAlpha: false, candidate: 0),
                         .init(pixelWidth: 128, pixelHeight: 96, hasAlpha: true, candidate: 2,
                               perceptual: PerceptualEncoding(quality: 63, score: 82.47)),
                         .init(pixelWidth: 320, pixelHeight: 240, hasAlpha: false, candidate: 1,
                               perceptual: .sourceKept)]
        full.placeholder = ImagePlaceholder(thumbHash: Data([1, 2, 3]), blurHash: "LEHV6nWB2yk8",
                                            averageColor: RGBAColor(red: 1, green: 2, blue: 3, alpha: 4))
        var failed = ImagingWire.Reply()
        failed.failure = .init(kind: "decodeFailed", message: "not a JPEG: ✗", libvipsMessage: nil)
        var partial = ImagingWire.Reply()
        partial.info = SourceImageInfo(format: .jpeg, loader: "jpeg", pixelWidth: 1, pixelHeight: 1, orientation: 1,
                                       hasAlpha: false, pageCount: 1, isAnimated: false, hasICCProfile: false,
                                       colorModel: .rgb, byteCount: 1)
        partial.placeholder = ImagePlaceholder(blurHash: "L00000fQfQfQ")
        for reply in [full, failed, partial, ImagingWire.Reply()] {
            let back = try roundTrip(reply)
            #expect(back.info == reply.info && back.placeholder == reply.placeholder)
            #expect(back.variants.map { [$0.pixelWidth, $0.pixelHeight, $0.hasAlpha ? 1 : 0, $0.candidate] }
                == reply.variants.map { [$0.pixelWidth, $0.pixelHeight, $0.hasAlpha ? 1 : 0, $0.candidate] })
            #expect(back.variants.map(\.perceptual) == reply.variants.map(\.perceptual))
            #expect(back.failure?.kind == reply.failure?.kind && back.failure?.message == reply.failure?.message
                && back.failure?.libvipsMessage == reply.failure?.libvipsMessage)
        }
    }

    @Test func aHeaderCutShortOrMalformedIsABrokenPipe() throws {
        var reply = ImagingWire.Reply()
        reply.variants = [.init(pixelWidth: 64, pixelHeight: 48, hasAlpha: false, candidate: 0)]
        reply.placeholder = ImagePlaceholder(thumbHash: Data([9, 9]))
        let whole = bytes(reply)
        for length in 0..<whole.count {
            var reader = WireReader(Array(whole.prefix(length)))
            #expect(throws: ImagingWire.BrokenPipe.self) { try ImagingWire.Reply(from: &reader) }
        }
        // A negative length other than "none", and a variant count beyond any job's.
        var writer = WireWriter()
        writer.int(-2)
        var reader = WireReader(writer.bytes)
        #expect(throws: ImagingWire.BrokenPipe.self) { try ImagingWire.Job(from: &reader) }
        writer = WireWriter()
        writer.bool(false)
        writer.int(1 << 40)
        reader = WireReader(writer.bytes)
        #expect(throws: ImagingWire.BrokenPipe.self) { try ImagingWire.Reply(from: &reader) }
    }
}
