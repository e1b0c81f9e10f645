import Foundation
import Testing
@testable import WarmCacheBuilder

/// The JSON `warm-cache plan --json` prints, and the text summary.
@Suite struct WarmPlanEncodingTests {
    @Test func jsonShape() throws {
        let fixture = try ManifestFixture(files: ["a.png": "png"])
        let yaml = """
        version: 1
        output: Out.warmcache
        defaults: { quality: { png: 90, webp: 70 }, placeholder: thumbhash }
        presets:
          round: { width: 48, height: 48, fit: cover, gravity: attention, processors: [{ round: 8 }], formats: [png] }
        fetch:
          headers: { Authorization: "Bearer ${TOKEN}" }
        images:
          - path: a.png
            key: asset://a
            presets: [round]
        """
        let plan = try fixture.load(yaml, environment: ["TOKEN": "secret-value"])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(plan), as: UTF8.self)
        let root = fixture.directory.standardizedFileURL.path.replacingOccurrences(of: "/", with: "\\/")
        #expect(json.contains(#""sources":[{"identifier":"asset:\/\/a","#
                              + #""listedAt":"\#(root)\/manifest.yml:9:11","location":"\#(root)\/a.png","#))
        #expect(json.contains(#""location":"\#(root)\/a.png","placeholders":["average","thumbhash"]"#))
        #expect(json.contains(#""variants":[{"fit":"cover","format":"png","gravity":"attention","height":48,"#
                              + #""preset":"round","processors":["round(8)"],"quality":{"png":90},"scale":1,"#
                              + #""upscale":false,"width":48}]"#))
        #expect(json.contains(#""headers":[{"name":"Authorization","value":"<redacted>"}]"#))
        #expect(json.contains(#""summary":{"byFormat":[{"name":"png","variants":1}],"#
                              + #""byPreset":[{"name":"round","variants":1}],"localSources":1,"remoteSources":0,"#
                              + #""sources":1,"variants":1}"#))
        #expect(!json.contains("secret-value"))
    }

    @Test func summaryText() throws {
        let fixture = try ManifestFixture(files: ["a.png": "png", "b.png": "png"])
        let yaml = """
        version: 1
        output: Out.warmcache
        presets:
          a: { width: 10, formats: [webp, jpeg], scales: [1, 2] }
        images:
          - urls: [https://cdn.example.com/1.jpg, https://cdn.example.com/2.jpg]
            presets: [a]
          - path: a.png
            presets: [a]
          - path: b.png
            width: 20
        """
        let summary = try fixture.load(yaml).summary
        #expect(summary.description == """
        4 sources (2 remote, 2 local), 13 variants
          formats: auto 1, jpeg 6, webp 6
          presets: (entry) 1, a 12
        """)
    }
}
