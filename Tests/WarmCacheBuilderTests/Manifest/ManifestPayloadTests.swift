import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// The keys that decide what the app ships: `quality: auto`, `quality_target`, `platforms`,
/// `formats: [smallest]` and `budget`.
@Suite struct ManifestPayloadTests {
    let fixture: ManifestFixture

    init() throws {
        fixture = try ManifestFixture(files: ["a.png": "png"])
    }

    private func requests(_ yaml: String) throws -> [VariantRequest] {
        try #require(try fixture.load(yaml).sources.first).variants.map(\.request)
    }

    @Test func qualityAutoForEveryFormatOrPerFormat() throws {
        let all = try requests("""
            version: 1
            output: Out.warmcache
            defaults: { formats: [webp, jpeg], quality: auto, quality_target: 75 }
            images:
              - { path: a.png, width: 100 }
            """)
        #expect(all.map(\.quality) == [[.webp: .perceptual], [.jpeg: .perceptual]])
        #expect(all.allSatisfy { $0.qualityTarget == 75 })
        let spec = all[1].resolve(sourceHasAlpha: false)
        #expect(spec.qualityTarget == 75 && spec.quality == nil)
        #expect(VariantKey(source: SourceIdentifier("a.png"), spec: spec).rawValue == "a.png|100x_|@1x|inside|jpeg-target75|-")

        let mixed = try requests("""
            version: 1
            output: Out.warmcache
            defaults: { formats: [jpeg, png], quality: { jpeg: auto, png: 100 } }
            images:
              - { path: a.png, width: 100 }
            """)
        #expect(mixed[0].quality == [.jpeg: .perceptual])
        #expect(mixed[0].qualityTarget == PerceptualQuality.defaultTarget)
        // PNG ignores quality without a palette: no target reaches its key either.
        #expect(mixed[1].resolve(sourceHasAlpha: false).qualityTarget == nil)
    }

    @Test func theTargetIsInTheKeyAndParsesBack() throws {
        let spec = VariantSpec(width: 64, height: 64, scale: 2, fit: .cover(.attention), format: .avif, qualityTarget: 82)
        let key = VariantKey(source: SourceIdentifier("https://x.test/a.jpg"), spec: spec)
        #expect(key.rawValue == "https://x.test/a.jpg|64x64|@2x|cover-attention|avif-target82|-")
        #expect(VariantKey(parsing: key.rawValue) == key)
        #expect(VariantKey(parsing: "https://x.test/a.jpg|64x64|@2x|inside|avif-target082|-") == nil)
        #expect(VariantKey(parsing: "https://x.test/a.jpg|64x64|@2x|inside|avif-target82-q50|-") == nil)
    }

    @Test func smallestNeedsPlatforms() {
        let diagnostics = fixture.diagnostics("""
            version: 1
            output: Out.warmcache
            defaults: { formats: [smallest] }
            images:
              - { path: a.png, width: 100 }
            """)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?.contains("add 'platforms' at the top of the manifest") == true, "\(diagnostics)")
        #expect(diagnostics.first?.hasPrefix("manifest.yml:3:23: error:") == true, "\(diagnostics)")
    }

    @Test func smallestChoosesAmongWhatEveryPlatformDecodes() throws {
        func candidates(_ platforms: String) throws -> FormatChoice {
            try requests("""
                version: 1
                output: Out.warmcache
                platforms: \(platforms)
                defaults: { formats: [smallest] }
                images:
                  - { path: a.png, width: 100 }
                """)[0].format
        }
        #expect(try candidates("{ ios: \"16.0\" }") == .smallest(opaque: [.avif, .webp, .jpeg],
                                                                  alpha: [.avif, .webp]))
        #expect(try candidates("{ ios: \"17\", macos: \"14.0\" }") == .smallest(opaque: [.avif, .jxl, .webp, .jpeg],
                                                                              alpha: [.avif, .jxl, .webp]))
        #expect(try candidates("{ ios: \"15.0\", android: \"8\" }") == .smallest(opaque: [.webp, .jpeg], alpha: [.webp]))
        #expect(try candidates("{ ios: \"15.0\" }") == .smallest(opaque: [.heic, .webp, .jpeg], alpha: [.webp]))
        #expect(try candidates("{ ios: \"13.0\" }") == .smallest(opaque: [.heic, .jpeg], alpha: [.png]))
        // Every candidate is searched at the target, whatever fixed quality the layers set.
        let request = VariantRequest(width: 10, height: nil, format: AppPlatforms([.ios: "16"]).smallest,
                                     quality: [.jpeg: 90], qualityTarget: 70)
        #expect(request.candidates(sourceHasAlpha: false).map(\.qualityTarget) == [70, 70, 70])
        #expect(request.candidates(sourceHasAlpha: true).map(\.format) == [.avif, .webp])
    }

    @Test func platformsAndBudgetAreChecked() {
        let diagnostics = fixture.diagnostics("""
            version: 1
            output: Out.warmcache
            platforms: { ios: "sixteen", andriod: "12" }
            budget: lots
            defaults: { quality: best, quality_target: 120 }
            images:
              - { path: a.png, width: 100 }
            """)
        #expect(diagnostics == [
            "manifest.yml:3:19: error: the iOS / iPadOS version must be a version such as \"16.0\", found the string"
                + " 'sixteen'",
            "manifest.yml:3:30: error: unknown platform 'andriod' in 'platforms' (did you mean 'android'?); use ios,"
                + " macos, tvos, watchos, visionos, android",
            "manifest.yml:4:9: error: 'budget' must be a size such as 512KB, 50MB or 1GiB (a bare number is bytes),"
                + " found 'lots'",
            "manifest.yml:5:22: error: 'quality' must be auto or a number from 1 to 100, found the string 'best'",
            "manifest.yml:5:44: error: 'quality_target' must be between 30 and 100, found 120",
        ], "\(diagnostics)")
    }

    @Test func budgetReachesThePlan() throws {
        let plan = try fixture.load("""
            version: 1
            output: Out.warmcache
            budget: 25MB
            images:
              - { path: a.png, width: 100 }
            """)
        #expect(plan.budget == 25_000_000)
        // 0 is a budget too (nothing may be shipped), not "not a size".
        let zero = try fixture.load("version: 1\noutput: Out.warmcache\nbudget: 0\nimages:\n  - { path: a.png, width: 100 }\n")
        #expect(zero.budget == 0)
    }

    @Test func docsShowTheDecodeTable() throws {
        let text = try String(contentsOf: RepositoryFiles.root.appendingPathComponent("docs/manifest.md"), encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- platforms:begin -->\n"))
        let end = try #require(text.range(of: "\n<!-- platforms:end -->"))
        #expect(String(text[begin.upperBound..<end.lowerBound]) == AppPlatforms.markdown)
    }

    @Test("the manifest's decode table is the runtime's, so what smallest bakes is what a device accepts")
    func oneDecodeTable() {
        #expect(AppPlatforms.decodeTable.map(\.format) == FormatSupport.firstDecodingVersions.map(\.format))
        #expect(AppPlatforms.decodeTable.map(\.since) == FormatSupport.firstDecodingVersions.map(\.since))
        for platform in AppPlatform.allCases {
            for version in ["4", "11", "13", "14", "16", "17", "26"] {
                let minimum = AppPlatforms([platform: OSVersion(stringLiteral: version)])
                let device = FormatSupport.decodedFormats(on: platform, version: OSVersion(stringLiteral: version))
                #expect(minimum.opaqueCandidates.allSatisfy(device.contains), "\(platform) \(version)")
                #expect(minimum.alphaCandidates.allSatisfy(device.contains), "\(platform) \(version)")
            }
        }
        #expect(FormatSupport.decodedFormats(on: .ios, version: "16.0") == [.avif, .heic, .webp, .jpeg, .png, .gif])
        #expect(FormatSupport.decodedFormats(on: .watchos, version: "8.0") == [.heic, .webp, .jpeg, .png, .gif])
        #expect(ImageFormat.decodedHere == [.avif, .jxl, .heic, .webp, .jpeg, .png, .gif], "Linux: every format")
    }

    @Test func versionsCompareByNumber() {
        #expect(OSVersion(parsing: "16.0")! == OSVersion(parsing: "16")!)
        #expect(OSVersion(parsing: "10.13")! > OSVersion(parsing: "10.9")!)
        #expect(OSVersion(parsing: "16.0.1")! > OSVersion(parsing: "16")!)
        #expect(OSVersion(parsing: "16.") == nil && OSVersion(parsing: "x") == nil && OSVersion(parsing: "-1") == nil)
        #expect(AppPlatforms([.macos: "10.15"]).decodes(.heic) && !AppPlatforms([.macos: "10.15"]).decodes(.webp))
        #expect(!AppPlatforms([.android: "14"]).decodes(.jxl))
    }

    /// Quality settings that would do nothing are warnings, at the line that wrote them: fixed
    /// qualities under `formats: [smallest]`, and a `quality_target` beside fixed qualities.
    @Test func qualitySettingsThatDoNothingAreWarnings() throws {
        func warnings(_ card: String) throws -> [String] {
            try fixture.load("version: 1\noutput: Out.warmcache\nplatforms: { ios: \"16.0\" }\npresets:\n  card: \(card)\n"
                             + "images:\n  - { path: a.png, presets: [card] }\n").warnings.map(\.description)
        }
        let smallest = try warnings("{ width: 100, formats: [smallest], quality: { avif: 50, jpeg: 80 } }")
        #expect(smallest.contains {
            $0.contains("manifest.yml:5:") && $0.contains("'formats: [smallest]' encodes every candidate at 'quality_target', "
                + "so 'quality' (avif 50, jpeg 80) is ignored")
        }, "\(smallest)")
        let target = try warnings("{ width: 100, formats: [jpeg], quality: 80, quality_target: 90 }")
        #expect(target.contains {
            $0.contains("manifest.yml:5:") && $0.contains("'quality_target' only applies to 'quality: auto' and "
                + "'formats: [smallest]'; this variant has fixed qualities (jpeg 80)")
        }, "\(target)")
        #expect(try warnings("{ width: 100, formats: [jpeg], quality: auto, quality_target: 90 }").isEmpty)
    }

    /// `speed` reaches the requests of `quality: auto` and `smallest`, names only a level other
    /// than the default in the key, and says so where it would do nothing or is misspelt.
    @Test func speedLevels() throws {
        func manifest(_ card: String) -> String {
            "version: 1\noutput: Out.warmcache\nplatforms: { ios: \"16.0\" }\npresets:\n  card: \(card)\n"
                + "images:\n  - { path: a.png, presets: [card] }\n"
        }
        let fast = try requests(manifest("{ width: 100, formats: [smallest], speed: fast }"))
        #expect(fast.map(\.options.speed) == [.fast])
        let key = VariantKey(source: SourceIdentifier("a"), spec: fast[0].resolve(sourceHasAlpha: false))
        #expect(key.rawValue.hasSuffix("|avif-target80-fast|-"), "\(key.rawValue)")
        #expect(VariantKey(parsing: key.rawValue) == key)
        let balanced = try requests(manifest("{ width: 100, formats: [webp], quality: auto, speed: balanced }"))
        #expect(balanced[0].resolve(sourceHasAlpha: false).options.speed == nil, "the default names nothing")
        let fixed = try fixture.load(manifest("{ width: 100, formats: [jpeg], quality: 80, speed: smallest }"))
        #expect(fixed.warnings.map(\.description).contains {
            $0.contains("manifest.yml:5:") && $0.contains("'speed' only applies to 'quality: auto' and "
                + "'formats: [smallest]', so it is ignored here")
        }, "\(fixed.warnings)")
        #expect(fixed.sources[0].variants[0].request.resolve(sourceHasAlpha: false).options.speed == nil)
        let both = try fixture.load(manifest("{ width: 100, formats: [jpeg], quality: 80, quality_target: 90, speed: fast }"))
        #expect(both.warnings.count == 2, "each setting that does nothing is named: \(both.warnings)")
        let misspelt = fixture.diagnostics(manifest("{ width: 100, formats: [smallest], speed: fats }"))
        #expect(misspelt.contains { $0.contains("unknown speed 'fats'") && $0.contains("did you mean 'fast'")
            && $0.contains("use fast, balanced (the default) or smallest") }, "\(misspelt)")
    }
}
