import WarmCache
import WarmCacheBuilder
import WarmCacheImaging

enum WarmCacheVersionText {
    /// The version alone. The command's configuration holds it, and every run reads that, so it
    /// must probe nothing.
    static var text: String { "\(WarmCacheVersion.current)" }

    /// What `warm-cache --version` prints: the version, then what this machine's libvips can do,
    /// so that a missing encoder shows before a warm needs it:
    ///
    ///     1.4.0
    ///     libvips 8.14.1; modules from /usr/lib/x86_64-linux-gnu/vips-modules-8.14: vips-heif (vips-heif.so), vips-jxl (vips-jxl.so)
    ///     encodes: avif, gif, heic, jpeg, jxl, png, webp
    ///     decodes: avif, gif, heic, jpeg, jxl, png, webp
    static var report: String {
        let modules = ImagingRuntime.moduleFolder.map { folder in
            "; modules from \(folder): " + ImagingRuntime.modules.map(\.summary).joined(separator: ", ")
        } ?? "; built without loadable modules"
        let encodes = ImagingEngine.availableFormats().map(\.rawValue).sorted()
        let decodes = ImagingEngine.decodableFormats().map(\.rawValue).sorted()
        var lines = [text, "libvips \(ImagingEngine.libvipsVersion)\(modules)",
                     "encodes: \(encodes.joined(separator: ", "))", "decodes: \(decodes.joined(separator: ", "))"]
        let missing = Set(ImageFormat.allCases).subtracting(ImagingEngine.availableFormats())
        lines += missing.sorted().compactMap(ImagingRuntime.missingFormatAdvice)
        return lines.joined(separator: "\n")
    }
}
