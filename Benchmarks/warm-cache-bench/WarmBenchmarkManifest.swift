/// The manifest the warm benchmark bakes, and the same variants as `vipsthumbnail` arguments
/// for the naive baseline: 3 presets x 2 formats, @1x.
enum WarmBenchmarkManifest {
    static let variantsPerSource = 6
    static let description = "thumb 64x64 cover, card 320w, hero 1024w; webp + jpeg"

    static func yaml(urls: [String]) -> String {
        """
        version: 1
        output: Build/Bench.warmcache
        defaults:
          formats: [webp, jpeg]
          quality: { jpeg: 80, webp: 80 }
          scales: [1]
          placeholder: none
        presets:
          thumb: { width: 64, height: 64, fit: cover, gravity: centre }
          card:  { width: 320 }
          hero:  { width: 1024 }
        fetch:
          concurrency: 32
          per_host: 16
        images:
          - urls:
        \(urls.map { "      - \($0)" }.joined(separator: "\n"))
            presets: [thumb, card, hero]

        """
    }

    /// `vipsthumbnail` arguments (size, crop) per preset; each runs once per format.
    static let baselineVariants: [(name: String, arguments: [String])] = [
        ("thumb", ["-s", "64x64", "-m", "centre"]),
        ("card", ["-s", "320x"]),
        ("hero", ["-s", "1024x"]),
    ]
    static let baselineFormats = ["webp[Q=80]", "jpg[Q=80]"]
}
