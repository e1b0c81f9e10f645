import Foundation

/// Manifest text for the tests. Presets are small, so a run of dozens of sources stays fast.
enum Manifests {
    /// `thumb`: 48x48 cover in WebP and JPEG; `card`: 100 points wide at 1x and 2x in JPEG and PNG.
    static let presets = """
        presets:
          thumb: { width: 48, height: 48, fit: cover, formats: [webp, jpeg] }
          card: { width: 100, formats: [jpeg, png], scales: [1, 2] }
        """

    /// Variants per source with both presets.
    static let variantsPerSource = 2 + 4

    /// Fetch settings that keep failure paths quick: one retry, short waits. The timeouts are
    /// generous on purpose: a busy 2-core CI machine can hold up a healthy loopback response for
    /// many seconds, and a timeout here would be a retry the test did not ask for. Tests of
    /// timeouts set their own.
    static let fastFetch = """
        fetch:
          timeout: 300s
          connect_timeout: 30s
          retries: 1
          retry_delay: 10ms
        """

    /// A manifest listing each URL as its own entry with `presets`.
    static func yaml(output: String = "Out/Images.warmcache", urls: [URL], presets: [String] = ["thumb", "card"],
                     fetch: String = fastFetch, extraPresets: String = "", defaults: String = "") -> String {
        var text = "version: 1\noutput: \(output)\n"
        if !defaults.isEmpty { text += defaults + "\n" }
        text += presetBlock(extra: extraPresets) + "\n" + fetch + "\nimages:\n"
        for url in urls {
            text += "  - url: \(url.absoluteString)\n    presets: [\(presets.joined(separator: ", "))]\n"
        }
        return text
    }

    static func presetBlock(extra: String) -> String {
        extra.isEmpty ? presets : presets + "\n" + extra
    }
}
