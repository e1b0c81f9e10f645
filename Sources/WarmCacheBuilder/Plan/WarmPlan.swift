import Foundation
import WarmCache
import WarmCacheImaging

/// What a manifest asks for, fully expanded and validated: every source with every variant to
/// make, and how to download. Produced by ``ManifestLoader``; consumed by the warm pipeline
/// and by `warm-cache plan` (which prints ``summary``, or the plan as JSON).
///
/// Deterministic: the same manifest (and environment) always gives an equal plan, with sources
/// sorted by identifier and variants in manifest order.
public struct WarmPlan: Sendable, Hashable {
    /// The manifest file (absolute).
    public var manifestURL: URL
    /// The bundle directory to write (absolute), e.g. `/repo/Build/Images.warmcache`.
    public var output: URL
    public var fetch: FetchSettings
    /// Unique by identifier, sorted by identifier.
    public var sources: [PlannedSource]
    /// Problems that did not stop the load (unused presets, settings a fit ignores, ...).
    public var warnings: [ManifestDiagnostic]
    /// A digest of what the whole manifest asks for (see ``ManifestFingerprint``), recorded in the
    /// bundle so that `warm-cache merge` only combines parts of one manifest. Unchanged by
    /// ``restricted(to:)``.
    public var fingerprint: String
    /// The shard this plan is restricted to, or `nil` for the whole manifest.
    public var shard: Shard?
    /// The manifest's `budget`: the most bytes the bundle's files may take, or `nil`.
    public var budget: Int?

    /// `fingerprint` defaults to the one of `sources`.
    public init(manifestURL: URL, output: URL, fetch: FetchSettings, sources: [PlannedSource],
                warnings: [ManifestDiagnostic] = [], fingerprint: String? = nil) {
        self.manifestURL = manifestURL
        self.output = output
        self.fetch = fetch
        self.sources = sources
        self.warnings = warnings
        self.fingerprint = fingerprint ?? ManifestFingerprint.compute(sources)
        self.shard = nil
    }
}

/// One source image and the variants to make from it.
public struct PlannedSource: Sendable, Hashable {
    /// Where the bytes come from.
    public enum Location: Sendable, Hashable {
        /// An `http`/`https` URL, normalised as its identifier is.
        case remote(URL)
        /// A local file (absolute), from a manifest `path:` relative to the manifest.
        case file(URL)

        public var url: URL {
            switch self {
            case .remote(let url), .file(let url): return url
            }
        }

        public var isRemote: Bool {
            if case .remote = self { return true }
            return false
        }
    }

    /// The identity stored in the bundle: the normalised URL, the `path:` as written, or the entry's `key:`.
    public var identifier: SourceIdentifier
    /// Where the bytes come from.
    public var location: Location {
        get { storedLocation.location }
        set { storedLocation = StoredLocation(newValue, sharingTextOf: identifier) }
    }
    private var storedLocation: StoredLocation
    /// Whether the bytes come from the network (cheaper than asking ``location``).
    public var isRemote: Bool { storedLocation.isRemote }
    /// Unique by request, in manifest order: presets as listed, then scales, then formats.
    public var variants: [PlannedVariant]
    public var placeholders: PlaceholderKinds
    /// Where the source was listed (the URL or path value, or the line of a `urls_from` file).
    public var manifestLocation: ManifestLocation

    public init(identifier: SourceIdentifier, location: Location, variants: [PlannedVariant],
                placeholders: PlaceholderKinds, manifestLocation: ManifestLocation) {
        self.identifier = identifier
        self.storedLocation = StoredLocation(location, sharingTextOf: identifier)
        self.variants = variants
        self.placeholders = placeholders
        self.manifestLocation = manifestLocation
    }
}

/// A location as a plan keeps it. A remote URL is kept as its text and made into a `URL` when
/// asked for: a `URL` value costs ~450 bytes here, which a million-URL plan cannot afford, while
/// its text is usually the identifier's own.
private enum StoredLocation: Sendable, Hashable {
    case remote(String)
    case file(URL)

    /// When the URL's text is the identifier's (a source without `key:`), both share one string.
    init(_ location: PlannedSource.Location, sharingTextOf identifier: SourceIdentifier) {
        switch location {
        case .remote(let url):
            let text = url.absoluteString
            self = .remote(text == identifier.rawValue ? identifier.rawValue : text)
        case .file(let url):
            self = .file(url)
        }
    }

    var location: PlannedSource.Location {
        switch self {
        case .remote(let text):
            guard let url = URL(string: text) else { preconditionFailure("a planned URL no longer parses: \(text)") }
            return .remote(url)
        case .file(let url):
            return .file(url)
        }
    }

    var isRemote: Bool {
        if case .remote = self { return true }
        return false
    }
}

/// One variant to make from a source, and the preset it came from.
public struct PlannedVariant: Sendable, Hashable {
    /// The preset's name, or ``entryPreset`` for a variant described by the image entry itself.
    public var preset: String
    public var request: VariantRequest

    /// The `preset` of variants an image entry describes with its own `width`/`height`.
    public static let entryPreset = "(entry)"

    public init(preset: String, request: VariantRequest) {
        self.preset = preset
        self.request = request
    }
}
