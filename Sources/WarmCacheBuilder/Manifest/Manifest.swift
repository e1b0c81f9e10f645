import WarmCache
import WarmCacheImaging

/// A manifest as written, after type checking and before expansion: every value keeps the
/// place it came from, so ``PlanBuilder`` can still point at it when a combination turns out
/// to be impossible. `docs/manifest.md` is the user-facing reference for every key.
struct Manifest {
    var version: Located<Int>?
    var output: Located<String>?
    /// `platforms:`: the oldest OS versions the app supports (what `formats: [smallest]` may choose).
    var platforms: Located<AppPlatforms>?
    /// `budget:`: the most bytes the bundle's files may take, or `nil` for no limit.
    var budget: Located<Int>?
    /// `defaults:` minus the keys that are not variant settings.
    var defaults = ManifestVariantSettings()
    /// `defaults.presets`: the presets of entries that name none and give no box of their own.
    var defaultPresets: Located<[Located<String>]>?
    /// `defaults.placeholder`.
    var defaultPlaceholder: Located<PlaceholderKinds>?
    /// `presets:`, in written order.
    var presets: [ManifestPreset] = []
    var fetch = FetchSettings()
    var images: [ManifestImageEntry] = []
    /// Where `images:` was written, for "no images" style messages; `nil` if missing.
    var imagesLocation: ManifestLocation?
}

/// A named set of variant settings (`presets.thumb`).
struct ManifestPreset {
    var name: Located<String>
    var settings: ManifestVariantSettings
}

/// One item of `images:`.
struct ManifestImageEntry {
    /// Where the entry's sources come from; exactly one per entry.
    enum Source {
        case url(Located<String>)
        case urls([Located<String>])
        case urlsFrom(Located<String>)
        case path(Located<String>)
    }

    var source: Source
    /// `key:`: the identifier of a single `url` or `path` source, instead of the default.
    var key: Located<String>?
    var presets: Located<[Located<String>]>?
    var placeholder: Located<PlaceholderKinds>?
    /// Variant settings written on the entry, applied on top of each preset.
    var overrides = ManifestVariantSettings()
    /// The entry's first line (the `-` item).
    var location: ManifestLocation
    /// Whether the entry had unknown keys (already reported); a misspelt `presets` then does
    /// not also report "no variants".
    var hadUnknownKeys = false

    /// Whether the entry describes a variant of its own (it sets a box), rather than only
    /// adjusting its presets.
    var hasOwnBox: Bool {
        overrides.width != nil || overrides.height != nil
    }
}

/// Variant settings at one layer (defaults, a preset, or an image entry). `nil` means "not set
/// here"; ``overlaid(by:)`` stacks layers.
struct ManifestVariantSettings {
    var width: Located<Int>?
    var height: Located<Int>?
    var fit: Located<FitMode.Kind>?
    var gravity: Located<CropGravity>?
    var background: Located<RGBAColor>?
    var upscale: Located<Bool>?
    var formats: Located<[Located<FormatChoice>]>?
    /// Merged per format across layers: an entry's `{ webp: 70 }` keeps the defaults' `jpeg: 82`.
    var quality: [ImageFormat: Located<QualitySetting>] = [:]
    /// The SSIMULACRA2 score `quality: auto` aims for.
    var qualityTarget: Located<Int>?
    /// How hard `quality: auto` and `smallest` work for fewer bytes.
    var speed: Located<SearchSpeed>?
    var scales: Located<[Located<Int>]>?
    var processors: Located<[Located<Processor>]>?
    // Encoder options, each merged on its own.
    var lossless: Located<Bool>?
    var progressive: Located<Bool>?
    var chromaSubsampling: Located<Bool>?
    var effort: Located<Int>?
    var palette: Located<Bool>?
    var keepICCProfile: Located<Bool>?
    /// Whether a layer of these settings had an unknown key (already reported, with a "did you
    /// mean"): a misspelt `widht` then does not also report the width it failed to set.
    var hadUnknownKeys = false

    /// These settings with every value set in `top` taking precedence. Lists (formats, scales,
    /// processors) are replaced whole; quality and encoder options are merged key by key.
    func overlaid(by top: ManifestVariantSettings) -> ManifestVariantSettings {
        var result = self
        result.width = top.width ?? width
        result.height = top.height ?? height
        result.fit = top.fit ?? fit
        result.gravity = top.gravity ?? gravity
        result.background = top.background ?? background
        result.upscale = top.upscale ?? upscale
        result.formats = top.formats ?? formats
        result.quality.merge(top.quality) { _, newer in newer }
        result.qualityTarget = top.qualityTarget ?? qualityTarget
        result.speed = top.speed ?? speed
        result.scales = top.scales ?? scales
        result.processors = top.processors ?? processors
        result.lossless = top.lossless ?? lossless
        result.progressive = top.progressive ?? progressive
        result.chromaSubsampling = top.chromaSubsampling ?? chromaSubsampling
        result.effort = top.effort ?? effort
        result.palette = top.palette ?? palette
        result.keepICCProfile = top.keepICCProfile ?? keepICCProfile
        result.hadUnknownKeys = hadUnknownKeys || top.hadUnknownKeys
        return result
    }
}
