import Foundation
import WarmCache

extension ImageLoader {
    /// Decodes a bundle blob on the decoding threads and keeps it in memory. Shared work: run
    /// once for every identical request in flight.
    func decodeBlob(_ variant: CachedImage, as key: DecodedImageKey, for url: URL) async throws -> DecodedImage {
        // Work that finished between the caller's look in memory and its joining left it there.
        if let image = decodedCache.image(for: key) { return image }
        // A blob the bundle holds in memory (prefetched) is decoded from there, not read again.
        let inMemory = variant.isInMemory ? try? variant.data() : nil
        let encoded = EncodedImage(bytes: inMemory.map { .data($0) } ?? .file(variant.fileURL), format: variant.format)
        let decoder = self.decoder
        let image: DecodedImage
        do {
            image = try await decodeQueue.run { try decoder.decode(encoded, maxPixelSize: key.maxPixelSize) }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            let path = BundleFormat.objectPath(sha256: variant.sha256, format: variant.format)
            throw ImageLoadingError(url: url, reason: .undecodableBlob(path: path, detail: PlainReason.of(error)))
        }
        decodedCache.insert(image, for: key)
        return image
    }

    /// Downloads `url` (shared with every request for it in flight, whatever its size), decodes
    /// the body on the decoding threads and keeps it in memory.
    ///
    /// The body's own size, when the decoder reads it from the header, makes the decode cover the
    /// view on both sides, as a bundle blob's recorded size does (``ImageSource/decodeSize(for:of:)``).
    func download(_ url: URL, for request: ImageRequest, with downloader: ImageDownloader,
                  as key: DecodedImageKey) async throws -> DecodedImage {
        if let image = decodedCache.image(for: key) { return image }
        let body = try await downloads.value(for: url) { try await downloader.body(of: url) }
        try Task.checkCancellation()
        let decoder = self.decoder
        let image: DecodedImage
        do {
            image = try await decodeQueue.run {
                let encoded = EncodedImage(bytes: .data(body.data), format: nil)
                let size = decoder.pixelSize(of: encoded).map { ImageSource.decodeSize(for: request, of: $0) }
                return try decoder.decode(encoded, maxPixelSize: size ?? key.maxPixelSize)
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw ImageLoadingError(url: url, reason: .undecodableBody(byteCount: body.data.count,
                                                                       contentType: body.contentType,
                                                                       detail: PlainReason.of(error)))
        }
        decodedCache.insert(image, for: key)
        return image
    }
}
