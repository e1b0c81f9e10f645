import WarmCache

extension VariantReport {
    /// The report line of one variant's index row.
    init(_ variant: BundleContents.Variant, action: Action) {
        self.init(cacheKey: variant.key.rawValue, presets: variant.presets, format: variant.key.spec.format.rawValue,
                  pixelWidth: variant.pixelSize.width, pixelHeight: variant.pixelSize.height,
                  bytes: variant.byteCount,
                  blob: BundleFormat.objectPath(sha256: variant.blobSHA256, format: variant.key.spec.format),
                  action: action)
    }
}
