import Foundation
import WarmCache

/// One imaging process, started by the warm: it renders the sources sent to it one at a time.
///
/// Used by one thread at a time (``ImagingProcessPool`` lends it out).
final class ImagingProcess: @unchecked Sendable {
    let pid: pid_t
    /// The process's standard input (jobs go there) and output (replies come from there).
    private let jobs: Int32
    private let replies: Int32
    /// The spec sets sent to this process, by the number jobs name them with.
    private var sentSpecSets: [ImagingWire.SpecSet: Int] = [:]

    /// Starts `command` (an executable and its arguments) and sends it `setup`.
    init(command: [String], setup: ImagingWire.Setup) throws {
        Self.spawning.lock()
        var locked = true
        defer { if locked { Self.spawning.unlock() } }
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard Self.makePipe(&toChild) else {
            throw ImagingWire.BrokenPipe(description: "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        guard Self.makePipe(&fromChild) else {
            close(toChild[0])
            close(toChild[1])
            throw ImagingWire.BrokenPipe(description: "cannot create pipes: \(String(cString: strerror(errno)))")
        }
        let spawned = LibC.spawn(command, environment: ProcessInfo.processInfo.environment,
                                 standardInput: toChild[0], standardOutput: fromChild[1])
        close(toChild[0])
        close(fromChild[1])
        Self.spawning.unlock()
        locked = false
        guard spawned.status == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw ImagingWire.BrokenPipe(description: "cannot start \(command[0]): \(String(cString: strerror(spawned.status)))")
        }
        pid = spawned.child
        jobs = toChild[1]
        replies = fromChild[0]
        do {
            try ImagingWire.write(setup, to: jobs)
        } catch {
            _ = stop()
            throw error
        }
    }

    /// Renders one source; throws ``ImagingWire/BrokenPipe`` when the process is gone.
    func render(_ bytes: Data, name: String, specs: [[VariantSpec]], alphaSpecs: [[VariantSpec]],
                placeholder: PlaceholderKinds, onVariant: (() -> Void)? = nil)
        throws -> Result<(SourceImageInfo, RenderedSource), ImagingError> {
        let set = ImagingWire.SpecSet(specs: specs, alphaSpecs: alphaSpecs)
        var job = ImagingWire.Job(name: name, specSet: sentSpecSets[set], newSpecSet: nil,
                                  placeholder: placeholder.rawValue)
        if job.specSet == nil {
            job.newSpecSet = set
            if sentSpecSets.count < ImagingWire.rememberedSpecSets {
                job.specSet = sentSpecSets.count
                sentSpecSets[set] = sentSpecSets.count
            }
        }
        try ImagingWire.write(job, payloads: [bytes], to: jobs)
        guard let (reply, images) = try ImagingWire.readReply(from: replies, onVariant: onVariant) else {
            throw ImagingWire.BrokenPipe(description: "the imaging process closed its output")
        }
        if let failure = reply.failure {
            return .failure(ImagingError(ImagingError.Kind(rawValue: failure.kind) ?? .processingFailed,
                                         source: name, message: failure.message,
                                         libvipsMessage: failure.libvipsMessage))
        }
        guard let info = reply.info else {
            throw ImagingWire.BrokenPipe(description: "a reply without the source's header")
        }
        let rendered = set.specs(hasAlpha: info.hasAlpha)
        guard images.count == reply.variants.count, reply.variants.count == rendered.count else {
            throw ImagingWire.BrokenPipe(description: "a reply with \(images.count) images and "
                + "\(reply.variants.count) variants for \(rendered.count) specs")
        }
        var variants: [EncodedVariant] = []
        for (group, (answer, data)) in zip(rendered, zip(reply.variants, images)) {
            guard group.indices.contains(answer.candidate) else {
                throw ImagingWire.BrokenPipe(description: "a reply naming candidate \(answer.candidate) of \(group.count)")
            }
            variants.append(EncodedVariant(spec: group[answer.candidate], pixelWidth: answer.pixelWidth,
                                           pixelHeight: answer.pixelHeight, hasAlpha: answer.hasAlpha, data: data,
                                           perceptual: answer.perceptual))
        }
        return .success((info, RenderedSource(variants: variants, placeholder: reply.placeholder ?? ImagePlaceholder())))
    }

    /// Closes its input (it exits when it has answered everything) and waits for it. Returns how it
    /// ended, for messages: "exit 0", "signal 11".
    @discardableResult
    func stop(force: Bool = false) -> String {
        close(jobs)
        if force { _ = kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(replies)
        let signal = status & 0x7f
        return signal != 0 ? "signal \(signal)" : "exit \((status >> 8) & 0xff)"
    }

    /// Held from creating a process's pipes to closing the child's ends in this process, so a
    /// process started at the same moment never inherits another's pipe (which would keep that
    /// one's input open after the warm closes it).
    private static let spawning = NSLock()

    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return true
    }
}
