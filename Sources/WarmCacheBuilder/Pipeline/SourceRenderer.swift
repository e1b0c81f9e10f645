import Foundation
import WarmCache
import WarmCacheImaging

/// Turns one source's original into stored blobs and index rows: decodes it, resolves its
/// variant requests against the image (format `auto` needs to know about alpha), and either
/// reuses an earlier identical render (``RenderMemo``) or renders and stores every blob.
///
/// Synchronous and CPU-bound: the pipeline calls it on Dispatch threads, a few at a time.
struct SourceRenderer: Sendable {
    let engine: ImagingEngine
    let writer: BundleWriter
    let memo: RenderMemo

    struct Rendered: Sendable {
        var source: BundleContents.Source
        var variants: [BundleContents.Variant]
        var reports: [VariantReport]
        var originalBytes: Int
        var originalSHA256: String
    }

    struct Failure: Error, Sendable {
        var failure: SourceFailure
    }

    func render(_ planned: PlannedSource, original: URL, knownSHA256: String?) throws(Failure) -> Rendered {
        let bytes: Data
        do {
            bytes = try Data(contentsOf: original, options: .alwaysMapped)
        } catch {
            throw Failure(failure: SourceFailure(.fileSystem, "cannot read \(original.path): \(error.localizedDescription)"))
        }
        let sha256 = knownSHA256 ?? ContentHash.sha256(bytes)
        let decoded: DecodedSource
        do {
            decoded = try engine.open(bytes, name: planned.identifier.rawValue)
        } catch {
            throw Failure(failure: SourceFailure(error))
        }

        // Resolve, then merge requests that land on the same key (two presets asking for the
        // same thing, or `auto` resolving to a format listed explicitly too).
        var presetsByKey: [VariantKey: [String]] = [:]
        var specs: [VariantKey: VariantSpec] = [:]
        for variant in planned.variants {
            let spec = variant.request.resolve(sourceHasAlpha: decoded.info.hasAlpha)
            let key = VariantKey(source: planned.identifier, spec: spec)
            specs[key] = spec
            if !presetsByKey[key, default: []].contains(variant.preset) {
                presetsByKey[key, default: []].append(variant.preset)
            }
        }
        let keys = specs.keys.sorted()
        let memoKey = RenderMemo.key(originalSHA256: sha256, keys: keys, placeholders: planned.placeholders,
                                     configuration: engine.configuration)
        let sourceFormat = decoded.info.format?.rawValue ?? decoded.info.loader

        if let entry = memo.load(memoKey), entry.variants.map(\.cacheKey) == keys.map(\.rawValue),
           zip(entry.variants, keys).allSatisfy({ writer.hasBlob(sha256: $0.blobSHA256, format: $1.spec.format,
                                                                   byteCount: $0.byteCount) }) {
            let variants = zip(entry.variants, keys).map { record, key in
                BundleContents.Variant(key: key, pixelSize: PixelSize(width: record.pixelWidth, height: record.pixelHeight),
                                       byteCount: record.byteCount, blobSHA256: record.blobSHA256,
                                       hasAlpha: record.hasAlpha, presets: presetsByKey[key] ?? [])
            }
            return Rendered(source: source(planned, decoded: decoded, format: sourceFormat, sha256: sha256,
                                           placeholder: entry.placeholder),
                            variants: variants, reports: variants.map { report($0, action: .reused) },
                            originalBytes: bytes.count, originalSHA256: sha256)
        }

        let rendered: RenderedSource
        do {
            rendered = try decoded.render(keys.compactMap { specs[$0] }, placeholder: planned.placeholders)
        } catch {
            throw Failure(failure: SourceFailure(error))
        }
        var variants: [BundleContents.Variant] = []
        for (key, encoded) in zip(keys, rendered.variants) {
            let stored: StoredBlob
            do {
                stored = try writer.storeBlob(encoded.data, format: key.spec.format)
            } catch {
                throw Failure(failure: SourceFailure(.fileSystem, "cannot store \(key.rawValue): \(error)"))
            }
            variants.append(BundleContents.Variant(
                key: key, pixelSize: PixelSize(width: encoded.pixelWidth, height: encoded.pixelHeight),
                byteCount: stored.byteCount, blobSHA256: stored.sha256, hasAlpha: encoded.hasAlpha,
                presets: presetsByKey[key] ?? []))
        }
        let placeholder = rendered.placeholder.isEmpty ? nil : rendered.placeholder
        let entry = RenderMemo.Entry(
            sourceFormat: sourceFormat, sourcePixelWidth: decoded.info.pixelWidth,
            sourcePixelHeight: decoded.info.pixelHeight,
            variants: variants.map {
                .init(cacheKey: $0.key.rawValue, pixelWidth: $0.pixelSize.width, pixelHeight: $0.pixelSize.height,
                      hasAlpha: $0.hasAlpha, byteCount: $0.byteCount, blobSHA256: $0.blobSHA256)
            },
            placeholder: placeholder)
        try? memo.save(entry, as: memoKey)  // a lost memo only costs a re-encode next time
        return Rendered(source: source(planned, decoded: decoded, format: sourceFormat, sha256: sha256,
                                       placeholder: placeholder),
                        variants: variants, reports: variants.map { report($0, action: .encoded) },
                        originalBytes: bytes.count, originalSHA256: sha256)
    }

    private func source(_ planned: PlannedSource, decoded: DecodedSource, format: String, sha256: String,
                        placeholder: ImagePlaceholder?) -> BundleContents.Source {
        BundleContents.Source(identifier: planned.identifier, contentSHA256: sha256, format: format,
                              pixelSize: decoded.info.pixelSize, byteCount: decoded.bytes.count,
                              placeholder: placeholder)
    }

    private func report(_ variant: BundleContents.Variant, action: VariantReport.Action) -> VariantReport {
        VariantReport(cacheKey: variant.key.rawValue, presets: variant.presets, format: variant.key.spec.format.rawValue,
                      pixelWidth: variant.pixelSize.width, pixelHeight: variant.pixelSize.height,
                      bytes: variant.byteCount, blob: BundleFormat.objectPath(sha256: variant.blobSHA256,
                                                                              format: variant.key.spec.format),
                      action: action)
    }
}
