import WarmCache

/// Rejects specs the engine cannot render, before any work is done.
enum SpecValidation {
    static func validate(_ spec: VariantSpec, name: String, capabilities: EncoderCapabilities) throws(ImagingError) {
        if let width = spec.width, width <= 0 {
            throw ImagingError(.invalidRequest, source: name, message: "box width \(width) must be positive")
        }
        if let height = spec.height, height <= 0 {
            throw ImagingError(.invalidRequest, source: name, message: "box height \(height) must be positive")
        }
        guard spec.scale >= 1 else {
            throw ImagingError(.invalidRequest, source: name, message: "scale \(spec.scale) must be at least 1")
        }
        for processor in spec.processors where PixelProcessor(processor, scale: spec.scale) == nil {
            throw ImagingError(.invalidRequest, source: name,
                               message: "processor \(processor.token) needs a positive, finite length")
        }
        guard capabilities.canEncode(spec.format) else {
            throw ImagingError(.encoderUnavailable, source: name,
                               message: "this libvips build cannot encode \(spec.format.rawValue)")
        }
    }
}
