import Foundation
import WarmCache

/// The imaging process's side: renders the jobs that arrive on standard input, one at a time,
/// and answers each on standard output (see ``ImagingWire``), until standard input closes.
///
/// The `warm-cache` executable runs this as its hidden `imaging-worker` command; the warm
/// starts one per imaging slot (``ImagingProcessPool``).
package enum ImagingWorker {
    /// Serves until standard input closes (the warm finished, or died). Returns the exit status.
    package static func serve(input: Int32 = 0, output: Int32 = 1) -> Int32 {
        do {
            guard let setup = try ImagingWire.readSetup(from: input) else { return 0 }
            _ = try ImagingRuntime.start(ImagingRuntime.Settings(vectorPaths: setup.vectorPaths))
            let engine = try ImagingEngine(configuration: setup.configuration)
            var specSets: [Int: ImagingWire.SpecSet] = [:]
            while let (job, payloads) = try ImagingWire.read(ImagingWire.Job.self, from: input) {
                if let number = job.specSet, let set = job.newSpecSet {
                    specSets[number] = set
                }
                guard let set = job.newSpecSet ?? job.specSet.flatMap({ specSets[$0] }) else {
                    throw ImagingWire.BrokenPipe(description: "a job with spec set \(job.specSet ?? -1), never sent")
                }
                let (reply, images) = render(job, specSet: set, bytes: payloads.first ?? Data(), engine: engine,
                                             output: output)
                try ImagingWire.write(reply, payloads: images, to: output)
            }
            return 0
        } catch is ImagingWire.BrokenPipe {
            return 1  // the warm is gone (killed, or it gave up on this process): nothing to tell anyone
        } catch {
            FileHandle.standardError.write(Data("warm-cache imaging-worker: \(PlainReason.of(error))\n".utf8))
            return 1
        }
    }

    /// Output pixels from which a render's memory is given back to the system after it (below,
    /// its buffers fit in what malloc keeps anyway: `wc_limit_malloc_arenas`' 16 MB trim threshold).
    static let largeRender = 1_000_000

    private static func render(_ job: ImagingWire.Job, specSet: ImagingWire.SpecSet, bytes: Data,
                               engine: ImagingEngine, output: Int32) -> (ImagingWire.Reply, [Data]) {
        var reply = ImagingWire.Reply()
        do {
            let opened = try engine.open(bytes, name: job.name)
            reply.info = opened.info
            let groups = specSet.specs(hasAlpha: opened.info.hasAlpha)
            let rendered = try opened.render(candidates: groups, placeholder: PlaceholderKinds(rawValue: job.placeholder),
                                             onVariant: { try? ImagingWire.writeVariantDone(to: output) })
            reply.variants = zip(groups, rendered.variants).map { group, variant in
                ImagingWire.Reply.Variant(pixelWidth: variant.pixelWidth, pixelHeight: variant.pixelHeight,
                                          hasAlpha: variant.hasAlpha, candidate: group.firstIndex(of: variant.spec) ?? 0,
                                          perceptual: variant.perceptual)
            }
            reply.placeholder = rendered.placeholder
            // A large render's buffers go back to the system: the process waits at its idle size.
            if rendered.variants.contains(where: { $0.pixelWidth * $0.pixelHeight >= largeRender }) {
                ImagingRuntime.releaseFreedMemory()
            }
            return (reply, rendered.variants.map(\.data))
        } catch {
            reply.failure = ImagingWire.Reply.Failure(kind: error.kind.rawValue, message: error.message,
                                                      libvipsMessage: error.libvipsMessage)
            return (reply, [])
        }
    }
}
