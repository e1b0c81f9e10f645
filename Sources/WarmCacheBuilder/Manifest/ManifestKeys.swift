/// The keys each part of a manifest accepts, and explanations for keys written in the wrong
/// place. Unknown keys are errors (with a "did you mean" suggestion), so a typo never silently
/// changes what gets built.
enum ManifestKeys {
    static let topLevel = ["version", "output", "platforms", "budget", "defaults", "presets", "fetch", "images"]

    /// Keys describing a variant; allowed in presets and image entries, and (without the box) in defaults.
    static let variant = [
        "width", "height", "fit", "gravity", "background", "upscale", "formats", "quality", "quality_target", "speed", "scales",
        "processors",
        "lossless", "progressive", "chroma_subsampling", "subsample", "effort", "palette", "keep_icc",
    ]

    static let defaults = variant.filter { $0 != "width" && $0 != "height" } + ["presets", "placeholder"]
    static let preset = variant
    static let imageSources = ["url", "urls", "urls_from", "path"]
    static let image = imageSources + ["key", "presets", "placeholder"] + variant

    static let fetch = [
        "concurrency", "per_host", "timeout", "connect_timeout", "retries", "retry_delay", "max_bytes",
        "max_redirects", "user_agent", "headers", "hosts", "proxy", "no_proxy",
    ]
    static let fetchHost = ["headers"]

    static let topLevelMisplaced: [String: String] = {
        var result: [String: String] = [:]
        for key in variant + ["placeholder"] {
            result[key] = "it is a variant setting; put it under 'defaults' (or in a preset or image entry)"
        }
        for key in fetch {
            result[key] = "it is a download setting; put it under 'fetch'"
        }
        for key in imageSources {
            result[key] = "sources are items of the 'images' list"
        }
        return result
    }()

    static let defaultsMisplaced: [String: String] = [
        "width": "a default size would apply to every preset; give sizes in presets or image entries",
        "height": "a default size would apply to every preset; give sizes in presets or image entries",
        "key": "keys name single sources; set 'key' on an image entry",
    ].merging(sourceMisplaced) { first, _ in first }

    static let presetMisplaced: [String: String] = [
        "placeholder": "placeholders are made once per source; set 'placeholder' in 'defaults' or on an image entry",
        "presets": "a preset cannot include other presets; share settings with a YAML anchor and merge key"
            + " ('base: &base {...}', then '<<: *base')",
        "key": "keys name single sources; set 'key' on an image entry",
    ].merging(sourceMisplaced) { first, _ in first }

    static let imageMisplaced: [String: String] = {
        var result: [String: String] = [:]
        for key in fetch {
            result[key] = "download settings apply to the whole manifest; put it under 'fetch'"
        }
        return result
    }()

    private static let sourceMisplaced: [String: String] = [
        "url": "sources are items of the 'images' list",
        "urls": "sources are items of the 'images' list",
        "urls_from": "sources are items of the 'images' list",
        "path": "sources are items of the 'images' list",
    ]
}
