// The plugin's words for a package that depends on WarmCache without its `Builder` trait, kept
// free of PackagePlugin so that the unit tests compile this same file (Tests/WarmCachePluginTests
// links to it).

/// WarmCache's `Builder` trait, which the `warm-cache` tool needs: an app that depends on
/// WarmCache with `traits: []` (to link only the runtime) still sees the plugin, but the tool's
/// packages (ArgumentParser, Yams, AsyncHTTPClient, …) are left out of its graph, so the tool
/// cannot be built. The plugin says so in one line, before or instead of the compiler's errors.
///
/// ```swift
/// if BuilderTrait.isOff(toolDependencies: ["WarmCacheBuilder", "WarmCacheImaging"]) {
///     Diagnostics.error(BuilderTrait.advice)
/// }
/// ```
enum BuilderTrait {
    static let name = "Builder"

    /// A product the tool's target depends on only with the `Builder` trait (Package.swift).
    static let marker = "ArgumentParser"

    /// The one line the plugin prints.
    static let advice = "the warm-cache tool needs WarmCache's \"\(name)\" trait (a default trait), which this "
        + "package's dependency on WarmCache turns off (`traits: []`): write `traits: [.defaults]` (or "
        + "`traits: [\"\(name)\"]`) on the WarmCache dependency in Package.swift to run the plugin here; "
        + "the app still links only the libraries it names"

    /// Whether the tool's target was resolved without the trait, from the names of the targets
    /// and products it depends on in the package graph (trait-conditioned ones are left out).
    static func isOff(toolDependencies: [String]) -> Bool {
        !toolDependencies.contains(marker)
    }

    /// What the compiler says when the trait is off: WarmCacheUpdates' own error where CryptoKit
    /// is missing, or a module of the builder's packages that is not there.
    static let failureSigns = [
        "enable the SwiftCrypto trait", "no such module 'ArgumentParser'", "no such module 'Yams'",
        "no such module 'AsyncHTTPClient'", "no such module 'NIOCore'", "no such module 'Logging'",
    ]

    /// Whether a failed build's log shows that the trait is off.
    static func explainsFailure(_ log: String) -> Bool {
        failureSigns.contains { log.contains($0) }
    }
}
