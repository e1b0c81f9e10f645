import Foundation
import WarmCache
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Imaging processes that render sources for a warm, one source per process at a time.
///
/// Rendering small images in one process, several at once, leaves a fifth to a quarter of the
/// cores idle: every libvips pipeline hands its work between threads many times per image, and
/// concurrent pipelines in one process contend for libvips' and GLib's process-wide locks and
/// wake each other's threads across cores. One process per imaging slot, each rendering one
/// source at a time as the pyvips scripts people compare with do, keeps the cores busy (see
/// `docs/imaging.md`). A libvips crash on a hostile image also ends only its process: the source
/// is rendered once more in a new process and, if that crashes too, fails alone.
///
/// Processes start on first use and are reused; callers bound how many renders run at once.
///
/// Each process renders one source at a time, so by default it runs libvips' vector paths even
/// where a process rendering several at once must not (``ImagingRuntime/VectorPaths/oneRenderAtATime``):
/// on libvips 8.14 its plain C resampling loop took ~10 % of a small image's CPU (4.6 % less CPU
/// in all with the vector paths on, once liborc's own compiles are counted).
package final class ImagingProcessPool: @unchecked Sendable {
    private let command: [String]
    private let setup: ImagingWire.Setup
    /// Whether the processes run libvips' vector paths (they round differently, so render
    /// records must say which).
    package let vectorPathsEnabled: Bool
    /// Processes not rendering anything now, guarded by `lock`.
    private var idle: [ImagingProcess] = []
    private let lock = NSLock()

    /// - Parameter command: the executable and arguments that serve ``ImagingWorker`` (the
    ///   `warm-cache` executable with `imaging-worker`).
    /// - Parameter vectorPaths: how the processes start libvips' vector paths.
    package init(command: [String], configuration: ImagingConfiguration,
                 vectorPaths: ImagingRuntime.VectorPaths = .oneRenderAtATime) {
        precondition(!command.isEmpty, "an imaging process needs a command")
        self.command = command
        setup = ImagingWire.Setup(configuration: configuration, vectorPaths: vectorPaths)
        // The processes run the same libraries in the same environment: they decide as this one
        // would (a runtime that cannot start here cannot start there either: nothing renders).
        vectorPathsEnabled = (try? ImagingRuntime.started())?.vectorPaths(vectorPaths) ?? false
        // A process that died must be a failed write, not the end of the warm.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Opens and renders a source in one of the processes, like ``ImagingEngine/open(_:name:)``
    /// then ``OpenedSource/render(_:placeholder:)`` with `specs` for an opaque source and
    /// `alphaSpecs` for one with alpha. Returns the header's facts with the render.
    package func render(_ bytes: Data, name: String, specs: [VariantSpec], alphaSpecs: [VariantSpec],
                        placeholder: PlaceholderKinds) throws(ImagingError) -> (SourceImageInfo, RenderedSource) {
        var ended: [String] = []
        for _ in 0..<2 {
            let process: ImagingProcess
            do {
                process = try takeIdle() ?? ImagingProcess(command: command, setup: setup)
            } catch {
                throw ImagingError(.engineUnavailable, source: name,
                                   message: "cannot start an imaging process (\(command.joined(separator: " "))): \(error)")
            }
            do {
                let result = try process.render(bytes, name: name, specs: specs, alphaSpecs: alphaSpecs,
                                                placeholder: placeholder)
                giveBack(process)
                return try result.get()
            } catch let error as ImagingError {
                throw error
            } catch {
                ended.append(process.stop(force: true))
            }
        }
        throw ImagingError(.processingFailed, source: name,
                           message: "the imaging process ended while rendering this source, twice (\(ended.joined(separator: ", "))); "
                               + "the other sources are not affected. Check the image with `vipsheader`, or report it with the file")
    }

    /// Stops every idle process (each exits once its input closes).
    package func shutdown() {
        lock.lock()
        let processes = idle
        idle.removeAll()
        lock.unlock()
        for process in processes { process.stop() }
    }

    private func takeIdle() -> ImagingProcess? {
        lock.lock()
        defer { lock.unlock() }
        return idle.popLast()
    }

    private func giveBack(_ process: ImagingProcess) {
        lock.lock()
        defer { lock.unlock() }
        idle.append(process)
    }
}
