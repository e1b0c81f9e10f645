import Foundation
import WarmCache

/// A source opened by ``ImagingEngine/open(_:name:)``: only its header has been read and checked
/// against the limits; no pixel is decoded yet. Each render call decodes it (once per call,
/// however many variants it asks for).
///
/// A value type holding the encoded bytes, so it can be handed to another task.
public struct OpenedSource: Sendable {
    /// The name given to ``ImagingEngine/open(_:name:)``, used in errors.
    public let name: String
    public let info: SourceImageInfo
    /// The encoded source.
    public let bytes: Data
    /// Whether the embedded profile is the standard sRGB one: its pixels need no transform to sRGB.
    let hasSRGBProfile: Bool
    let engine: ImagingEngine

    init(name: String, info: SourceImageInfo, hasSRGBProfile: Bool, bytes: Data, engine: ImagingEngine) {
        self.name = name
        self.info = info
        self.hasSRGBProfile = hasSRGBProfile
        self.bytes = bytes
        self.engine = engine
    }

    /// Renders every spec, decoding the source as few times as the sizes allow.
    ///
    /// With the cascade (the default), the source is decoded at the steps of a ladder (its size
    /// halved again and again: a JPEG shrinks on load to the first that fits in 2,048 px, the
    /// steps below are halved from it) and each variant is resampled from the smallest step that
    /// covers it; specs that differ only in encoding share their pixels. Variants come back in
    /// the order of `specs`.
    ///
    /// Output is deterministic: a variant's bytes depend on the source, the configuration and its
    /// own spec only, never on the other specs of the call or on what runs concurrently.
    public func render(_ specs: [VariantSpec]) throws(ImagingError) -> [EncodedVariant] {
        try render(specs, placeholder: []).variants
    }

    /// Renders every spec and the requested placeholders from one decode of the source.
    ///
    /// The placeholder's thumbnail is resampled from a decode made for the variants when one is
    /// large enough, so asking for it never changes the variants' bytes.
    public func render(_ specs: [VariantSpec], placeholder kinds: PlaceholderKinds) throws(ImagingError)
        -> RenderedSource {
        try render(candidates: specs.map { [$0] }, placeholder: kinds)
    }

    /// Renders one variant per group of candidate specs, and the requested placeholders, from
    /// one decode of the source. A group of several candidates (the same variant in different
    /// formats, each with a quality target: ``FormatChoice/smallest(opaque:alpha:)``) yields
    /// whichever encodes smallest; its spec is the winner's.
    /// `onVariant` is called as each variant is encoded, before the call returns.
    public func render(candidates: [[VariantSpec]], placeholder kinds: PlaceholderKinds,
                       onVariant: (() -> Void)? = nil) throws(ImagingError) -> RenderedSource {
        let thumbnail = kinds.isEmpty ? nil : PlaceholderRenderer.thumbnailSize(for: info.pixelSize)
        let plan = try RenderPlan.make(candidates, source: info, name: name, configuration: engine.configuration,
                                       capabilities: engine.capabilities, placeholderSize: thumbnail)
        let result: Result<RenderedSource, ImagingError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ImagingError) in
                let decoder = SourceDecoder(bytes: buffer, source: info, name: name, failOn: engine.failLevel,
                                            fastShrinkOnLoad: engine.configuration.fastShrinkOnLoad)
                let passthrough = SourcePassthrough(file: bytes, source: info, hasSRGBProfile: hasSRGBProfile)
                let renderer = VariantRenderer(plan: plan, source: info, hasSRGBProfile: hasSRGBProfile, name: name,
                                               decoder: decoder, passthrough: passthrough)
                renderer.onVariant = onVariant
                let placeholder = try renderer.placeholder(kinds)
                return RenderedSource(variants: try renderer.renderAll(), placeholder: placeholder)
            }
        }
        return try result.get()
    }

    /// The memory, in bytes, that ``render(candidates:placeholder:onVariant:)`` with these
    /// arguments is estimated to need at most, beyond what an idle imaging process holds: what
    /// a warm admits renders by. Reads the plan only: nothing is decoded.
    package func memoryNeeded(candidates: [[VariantSpec]], placeholder kinds: PlaceholderKinds) -> Int {
        let thumbnail = kinds.isEmpty ? nil : PlaceholderRenderer.thumbnailSize(for: info.pixelSize)
        guard let plan = try? RenderPlan.make(candidates, source: info, name: name, configuration: engine.configuration,
                                              capabilities: engine.capabilities, placeholderSize: thumbnail) else {
            return RenderMemory.perRender  // the render fails at once, saying why
        }
        return plan.peakMemory(source: info)
    }

    /// Computes the requested placeholders from a tiny (at most 100x100) decode of the source.
    public func placeholder(_ kinds: PlaceholderKinds) throws(ImagingError) -> ImagePlaceholder {
        try render([], placeholder: kinds).placeholder
    }
}
