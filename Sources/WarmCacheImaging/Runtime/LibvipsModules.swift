import CVipsShim
import Foundation
import WarmCache

/// One of the libvips modules the engine loads itself, and what became of it.
///
/// libvips builds its HEIF (AVIF, HEIC) and JPEG XL support as loadable modules in a folder beside
/// the library (`vips-modules-8.14` on Debian, `vips-modules-8.17` under Homebrew). The engine loads
/// those two when first needed, from the files libvips itself would load there: `.so` on Linux,
/// `.dylib` for libvips 8.15 and later on macOS.
public struct LibvipsModule: Sendable, Hashable {
    /// The module's name, e.g. `vips-heif`.
    public let name: String
    /// The file found for it, or `nil` when the folder has none.
    public let file: String?
    /// Whether it loaded.
    public let loaded: Bool
    /// Why opening the file failed (the system's words), when it did.
    public let problem: String?

    /// The formats the module reads and writes.
    public var formats: [ImageFormat] {
        name == "vips-jxl" ? [.jxl] : [.avif, .heic]
    }

    /// One line for `warm-cache --version`: `vips-heif (vips-heif.dylib)`, or what is wrong.
    public var summary: String {
        guard let file else { return "\(name): not found" }
        let fileName = (file as NSString).lastPathComponent
        return loaded ? "\(name) (\(fileName))" : "\(name): \(fileName) did not load (\(problem ?? "no reason given"))"
    }
}

extension ImagingRuntime {
    /// The folder the engine loads libvips' modules from, or `nil` when libvips loaded its own
    /// (built without modules, or with them elsewhere). Starts the runtime if needed.
    public static var moduleFolder: String? {
        guard (try? started()) != nil else { return nil }
        return wc_vips_module_folder().map { String(cString: $0) }
    }

    /// The modules the engine loads itself, each loaded now if it was not, with what became of it;
    /// empty when libvips loaded its own (see ``moduleFolder``).
    public static var modules: [LibvipsModule] {
        guard moduleFolder != nil else { return [] }
        return (0..<wc_vips_module_count()).map { index in
            var file: UnsafePointer<CChar>?
            var problem: UnsafePointer<CChar>?
            let loaded = wc_vips_module_status(index, &file, &problem) != 0
            return LibvipsModule(name: String(cString: wc_vips_module_name(index)),
                                 file: file.map { String(cString: $0) }, loaded: loaded,
                                 problem: problem.map { String(cString: $0) })
        }
    }

    /// What to do when `format` cannot be encoded or decoded: which module it needs, where it was
    /// looked for and what was found, and how to install it. `nil` for formats no module serves.
    public static func missingFormatAdvice(_ format: ImageFormat) -> String? {
        let module = format == .jxl ? "vips-jxl" : "vips-heif"
        guard [.avif, .heic, .jxl].contains(format) else { return nil }
        let found: String
        if let folder = moduleFolder {
            let state = modules.first { $0.name == module }
            if let file = state?.file {
                found = "\(file) is there but did not load (\(state?.problem ?? "no reason given"))"
            } else {
                found = "\(folder) has no \(module) file"
            }
        } else {
            found = "this libvips has no module folder beside it, so it was built without \(module)"
        }
        return "\(format.rawValue) needs libvips' \(module) module: \(found). Install libvips with it: "
            + "`brew install vips` on macOS (Homebrew's libvips includes libheif and JPEG XL), "
            + "`apt-get install libvips-dev` on Debian or Ubuntu"
    }
}
