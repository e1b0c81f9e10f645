import CVipsShim
import Foundation
import Testing
import WarmCache
@testable import WarmCacheImaging

/// The process-wide libvips state: started once, settings by name, vector paths off where
/// liborc's code memory races (libvips < 8.15 with liborc).
@Suite struct RuntimeTests {
    @Test func vectorPathsAreOffWhereLibvipsUsesLiborc() {
        let old = VectorPolicy.decide(.automatic, libvips: "8.14.1", orc: "0.4.33", libvipsDefault: true)
        #expect(!old.enabled)
        #expect(old.reason.contains("liborc 0.4.33"))
        #expect(!VectorPolicy.decide(.automatic, libvips: "8.12.2", orc: "0.4.40", libvipsDefault: true).enabled)
        // libvips 8.15+ (highway) or a libvips built without liborc: libvips decides.
        #expect(VectorPolicy.decide(.automatic, libvips: "8.15.0", orc: nil, libvipsDefault: true).enabled)
        #expect(VectorPolicy.decide(.automatic, libvips: "8.16.1", orc: "0.4.33", libvipsDefault: true).enabled)
        #expect(!VectorPolicy.decide(.automatic, libvips: "8.16.1", orc: nil, libvipsDefault: false).enabled)
        #expect(!VectorPolicy.decide(.automatic, libvips: "8.14.1", orc: nil, libvipsDefault: false).enabled)
        // A process rendering one source at a time keeps libvips' choice, liborc or not.
        let lone = VectorPolicy.decide(.oneRenderAtATime, libvips: "8.14.1", orc: "0.4.33", libvipsDefault: true)
        #expect(lone.enabled && lone.reason.contains("one source at a time"))
        #expect(!VectorPolicy.decide(.oneRenderAtATime, libvips: "8.14.1", orc: "0.4.33", libvipsDefault: false).enabled)
        // Explicit settings win.
        #expect(VectorPolicy.decide(.on, libvips: "8.14.1", orc: "0.4.33", libvipsDefault: true).enabled)
        #expect(!VectorPolicy.decide(.off, libvips: "8.16.0", orc: nil, libvipsDefault: true).enabled)
    }

    @Test func versionsCompareNumerically() {
        #expect(VectorPolicy.isBefore("8.14.1", "8.15"))
        #expect(VectorPolicy.isBefore("8.9.2", "8.15"))
        #expect(!VectorPolicy.isBefore("8.15", "8.15"))
        #expect(!VectorPolicy.isBefore("8.15.0", "8.15"))
        #expect(!VectorPolicy.isBefore("10.0", "8.15"))
        #expect(VectorPolicy.isBefore("0.4.33", "0.4.34"))
    }

    @Test func theRunningStateMatchesLibvips() throws {
        _ = Fixtures.engine
        let state = try #require(ImagingRuntime.state)
        #expect(state.libvipsVersion == ImagingEngine.libvipsVersion)
        #expect(state.vectorPathsEnabled == (wc_vips_vector_enabled() != 0))
        if state.orcVersion != nil && VectorPolicy.isBefore(state.libvipsVersion, "8.15") {
            #expect(!state.vectorPathsEnabled, "\(state.vectorPathsReason)")
        }
        #expect(!ImagingEngine.availableFormats().isEmpty)
    }

    /// Where libvips has a module folder, only the modules of the accepted formats are ever
    /// loaded, when first needed: no ImageMagick, PDF or OpenSlide loader in the process, and
    /// HEIF and JPEG XL there once an encoder is probed.
    @Test func onlyTheModulesTheFormatsNeedAreLoaded() throws {
        _ = Fixtures.engine
        guard let folder = wc_vips_module_folder().map({ String(cString: $0) }) else { return }
        for loader in ["magickload", "magickload_buffer", "pdfload", "openslideload"] {
            #expect(wc_vips_has_operation(loader) == 0, "\(loader) is loaded")
        }
        let modules = ImagingRuntime.modules
        #expect(modules.map(\.name) == ["vips-heif", "vips-jxl"])
        #expect(modules.allSatisfy { $0.loaded && $0.file?.hasPrefix(folder) == true }, "\(modules)")
        #expect(ImagingEngine.canEncode(.avif) && ImagingEngine.canEncode(.heic) && ImagingEngine.canEncode(.jxl))
        #expect(wc_vips_modules_loaded() != 0)
        #expect(wc_vips_has_operation("heifload_buffer") != 0 && wc_vips_has_operation("jxlload_buffer") != 0)
        // The process's environment is as it was (libvips was pointed away from the folder for its start).
        #expect(ProcessInfo.processInfo.environment["VIPSHOME"].map { !$0.hasPrefix(folder) } ?? true)
    }

    /// A module is found by its name with whatever suffix its build gave it: `.so` on Linux (and
    /// libvips 8.14 everywhere), `.dylib` from libvips 8.15 on macOS. glib's module suffix is "so"
    /// on macOS too, so a path built from it would miss Homebrew's modules.
    @Test func modulesAreFoundWithTheSuffixTheirBuildGaveThem() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("modules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["vips-heif.dylib", "vips-heifx.so", "vips-jxl.so.debug", "vips-magick.so"] {
            FileManager.default.createFile(atPath: folder.appendingPathComponent(name).path, contents: Data())
        }
        let find = { (module: String) -> String? in
            guard let found = wc_vips_find_module(folder.path, module) else { return nil }
            defer { wc_free(found) }
            return String(cString: found)
        }
        #expect(find("vips-heif") == folder.appendingPathComponent("vips-heif.dylib").path)
        #expect(find("vips-jxl") == nil)
        #expect(find("vips-poppler") == nil)
    }

    /// What `warm-cache --version` reports comes from here: every format the modules serve is
    /// encoded and decoded on this machine, and a missing one's advice names its module and folder.
    @Test func decodersAndAdviceNameTheModules() throws {
        _ = Fixtures.engine
        #expect(ImagingEngine.decodableFormats() == Set(ImageFormat.allCases))
        let advice = try #require(ImagingRuntime.missingFormatAdvice(.avif))
        #expect(advice.contains("vips-heif") && advice.contains("brew install vips"))
        #expect(ImagingRuntime.missingFormatAdvice(.jpeg) == nil)
    }

    @Test func startingAgainWithOtherSettingsIsRefusedByName() throws {
        _ = Fixtures.engine
        let running = try #require(ImagingRuntime.state)
        #expect(try ImagingRuntime.start(running.settings) == running)
        var other = running.settings
        other.threadsPerImage += 1
        let error = #expect(throws: ImagingError.self) { try ImagingRuntime.start(other) }
        #expect(error?.kind == .engineUnavailable)
        #expect(error?.message.contains("threadsPerImage \(running.settings.threadsPerImage)") == true)
        #expect(ImagingRuntime.state == running)
    }
}
