import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// One encoder capability table, followed by the docs, the keys and the encoder.
@Suite("Encoder capability table")
struct EncoderTableTests {
    @Test func docsShowTheTable() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/imaging.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- encoder-table:begin -->\n"))
        let end = try #require(text.range(of: "\n<!-- encoder-table:end -->"))
        #expect(String(text[begin.upperBound..<end.lowerBound]) == EncoderTable.markdown)
    }

    @Test func autoBecomingJPEGCarriesNoEffort() {
        let request = VariantRequest(width: 64, height: nil, format: .auto(), quality: [.jpeg: 80],
                                     options: EncodingOptions(effort: 4))
        let opaque = VariantKey(source: SourceIdentifier("https://x.test/a.jpg"), spec: request.resolve(sourceHasAlpha: false))
        let explicit = VariantKey(source: SourceIdentifier("https://x.test/a.jpg"), spec: VariantRequest(
            width: 64, height: nil, format: .fixed(.jpeg), quality: [.jpeg: 80]).resolve(sourceHasAlpha: false))
        #expect(opaque == explicit)
        #expect(opaque.rawValue.hasSuffix("|jpeg-q80|-"))
        let alpha = request.resolve(sourceHasAlpha: true)
        #expect(alpha.format == .png && alpha.options.effort == 4)
    }

    @Test func keysNameOnlyWhatTheEncoderUses() {
        func canonical(_ format: ImageFormat, quality: Int? = 70, _ options: EncodingOptions) -> VariantSpec {
            EncoderTable.canonical(VariantSpec(width: 10, height: nil, format: format, quality: quality, options: options))
        }
        let everything = EncodingOptions(lossless: false, progressive: true, chromaSubsampling: false, effort: 1,
                                         palette: false, keepICCProfile: true)
        #expect(canonical(.jxl, everything).options == EncodingOptions(lossless: false, effort: 3, keepICCProfile: true))
        #expect(canonical(.gif, everything).options == EncodingOptions(progressive: true, effort: 1))
        #expect(canonical(.gif, everything).quality == nil)
        #expect(canonical(.png, everything).quality == nil)
        #expect(canonical(.png, EncodingOptions(palette: true)).quality == 70)
        #expect(canonical(.avif, EncodingOptions(lossless: true)).quality == nil)
        #expect(canonical(.webp, EncodingOptions(lossless: true)).quality == 70)
        #expect(canonical(.jpeg, everything).options
                == EncodingOptions(progressive: true, chromaSubsampling: false, keepICCProfile: true))
        // What the table keeps, the encoder settings use.
        for row in EncoderTable.rows {
            let spec = canonical(row.format, everything)
            let settings = EncoderSettings.resolve(spec, defaults: EncoderDefaults())
            if let effort = spec.options.effort { #expect(settings.effort == effort) }
            if let range = row.effort?.range { #expect(range.contains(settings.effort)) }
        }
    }

    @Test func defaultsComeFromTheTable() {
        let defaults = EncoderDefaults()
        for row in EncoderTable.rows {
            #expect(defaults.effort[row.format] == row.effort?.default)
            if row.format != .png { #expect(defaults.quality[row.format] == row.quality?.default) }
        }
    }
}
