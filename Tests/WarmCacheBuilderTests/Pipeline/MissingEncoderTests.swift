import Foundation
import Testing
import WarmCache
import WarmCacheImaging
@testable import WarmCacheBuilder

/// A manifest that needs an encoder this machine lacks stops before any work, and says which
/// libvips module serves it, where it was looked for, and how to install it.
@Suite struct MissingEncoderTests {
    static let manifest = """
        version: 1
        output: Out.warmcache
        defaults: { scales: [1] }
        presets:
          hero: { width: 100, formats: [avif, jpeg] }
          sharp: { width: 50, formats: [jxl] }
        images:
          - path: a.png
            presets: [hero, sharp]
        """

    @Test func theMessageNamesTheModuleTheFolderAndTheInstall() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("encoders-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        FileManager.default.createFile(atPath: folder.appendingPathComponent("a.png").path, contents: Data([0]))
        let plan = try ManifestLoader().load(yaml: Self.manifest, fileURL: folder.appendingPathComponent("m.yml"))

        let error = try #require(WarmPipeline.missingEncoders(plan) { ![.avif, .heic, .jxl].contains($0) })
        let message = "\(error)"
        #expect(message.contains("cannot encode avif (presets: hero); jxl (presets: sharp)"), "\(message)")
        #expect(message.contains("It can encode: gif, jpeg, png, webp"), "\(message)")
        #expect(message.contains("avif needs libvips' vips-heif module") && message.contains("jxl needs libvips' vips-jxl module"))
        #expect(message.contains("brew install vips") && message.contains("apt-get install libvips-dev"))
        if let folder = ImagingRuntime.moduleFolder {
            #expect(message.contains(folder), "the folder it looked in: \(message)")
        }
        #expect(WarmPipeline.missingEncoders(plan) { _ in true } == nil)
    }
}
