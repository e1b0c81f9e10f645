// Opens the bundle that `swift package warm-cache` baked into this app's resources and prints
// the image a 100x100-point view on a 2x screen would get for each source.
//
//   swift run ConsumerApp                      # the bundle in the app's resources
//   swift run ConsumerApp path/to/X.warmcache  # another bundle
//
// Exits 1 if there is no bundle or any source has no image in it.
import Foundation
import WarmCache

/// The sources the app asks for: the `key:`s of warm-cache.yml.
let sources = ["asset://coffee", "asset://chelsea"]
let size = PointSize(width: 100, height: 100)
let scale = 2.0

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ConsumerApp: \(message)\n".utf8))
    exit(1)
}

let bundleURL: URL
if CommandLine.arguments.count > 1 {
    bundleURL = URL(fileURLWithPath: CommandLine.arguments[1])
} else if let url = Bundle.module.url(forResource: "Images", withExtension: "warmcache", subdirectory: "Resources") {
    bundleURL = url
} else {
    fail("""
        no Images.warmcache in the app's resources. Bake it, then build again:
          swift package --allow-writing-to-package-directory --allow-network-connections all warm-cache
        """)
}

let bundle: CacheBundle
do {
    bundle = try CacheBundle(contentsOf: bundleURL)
} catch {
    fail("\(error)")
}
print("\(bundleURL.path)")
print("  \(bundle.info.sourceCount) sources, \(bundle.info.variantCount) variants, written by \(bundle.info.generator)")

var missing: [String] = []
for source in sources {
    do {
        guard let image = try bundle.bestImage(for: source, size: size, scale: scale) else {
            print("\(source): no image")
            missing.append(source)
            continue
        }
        let bytes = try image.data()
        guard bytes.count == image.byteCount else {
            fail("\(source): \(image.fileURL.path) holds \(bytes.count) bytes, the index says \(image.byteCount)")
        }
        let placeholder = try bundle.placeholder(for: SourceIdentifier(source))
        print("\(source): \(image.pixelSize.width)x\(image.pixelSize.height) \(image.format), \(image.byteCount) bytes, "
            + "placeholder: \(placeholder?.thumbHash != nil ? "thumbhash" : "none")")
        print("  \(image.fileURL.path)")
    } catch {
        fail("\(source): \(error)")
    }
}
if !missing.isEmpty {
    fail("\(missing.count) of \(sources.count) sources have no image at \(Int(size.width))x\(Int(size.height))@\(Int(scale))x")
}
print("OK: every source has an image for \(Int(size.width))x\(Int(size.height))@\(Int(scale))x")
