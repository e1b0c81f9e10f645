import ArgumentParser
import Foundation
import WarmCache

/// `warm-cache lookup Images.warmcache URL --size 100x100 --scale 3 --accept webp,jpeg`:
/// the runtime library's answer, for scripts and people.
struct LookupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Show which image an app would get for a source at a size (exit 2 when there is none).")

    @Argument(help: "The bundle directory (…/Name.warmcache).", completion: .directory)
    var bundle: String

    @Argument(help: "A URL (normalised as the bundle does) or a manifest path or key, verbatim.")
    var source: String

    @Option(help: "The view size in points, WIDTHxHEIGHT (0 leaves a side free), e.g. 100x100 or 320x0.")
    var size: String

    @Option(help: "The device scale.")
    var scale: Double = 1

    @Option(help: "Formats the device decodes, in order of preference.")
    var accept = "avif,webp,jpeg,png"

    @Option(help: "Only variants with this fit: inside, cover, fill, contain.")
    var fit: String?

    @Option(help: "Only variants the manifest listed under this preset.")
    var preset: String?

    @Option(help: ArgumentHelp(
        "Processed variants: 'none' (unprocessed only; the default without --preset), 'any', or exact tokens "
            + "as in cache keys, e.g. 'round(24)' or 'grayscale,blur(2)'.",
        valueName: "none|any|tokens"))
    var processors: String?

    @Flag(help: "Print one JSON object: hit, path, format, pixelWidth, pixelHeight, bytes, cacheKey.")
    var json = false

    struct Answer: Encodable {
        var hit: Bool
        var path: String?
        var format: String?
        var pixelWidth: Int?
        var pixelHeight: Int?
        var bytes: Int?
        var cacheKey: String?
        var sha256: String?
        var hasAlpha: Bool?
        var placeholder: ImagePlaceholder?
    }

    func validate() throws {
        _ = try pointSize()
        _ = try formats()
        guard scale > 0, scale.isFinite else { throw ValidationError("--scale must be positive") }
        if let fit, FitMode.Kind(rawValue: fit) == nil {
            throw ValidationError("--fit '\(fit)' is not one of: inside, cover, fill, contain")
        }
        _ = try processorFilter()
    }

    func run() throws {
        let answer: Answer
        do {
            let cache = try CacheBundle(contentsOf: URL(fileURLWithPath: bundle))
            let hit = try cache.bestImage(for: source, size: try pointSize(), scale: scale, accepting: try formats(),
                                          fit: fit.flatMap(FitMode.Kind.init(rawValue:)), processors: try processorFilter(),
                                          preset: preset)
            let placeholder = try cache.placeholder(for: SourceIdentifier(source))
            answer = Answer(hit: hit != nil, path: hit?.fileURL.path, format: hit?.format.rawValue,
                            pixelWidth: hit?.pixelSize.width, pixelHeight: hit?.pixelSize.height, bytes: hit?.byteCount,
                            cacheKey: hit?.cacheKey, sha256: hit?.sha256, hasAlpha: hit?.hasAlpha,
                            placeholder: placeholder)
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        if json {
            try Console.json(answer)
        } else if answer.hit, let path = answer.path {
            Console.line(path)
            Console.line("  \(answer.format ?? "") \(answer.pixelWidth ?? 0)x\(answer.pixelHeight ?? 0), "
                + "\(Console.bytes(answer.bytes ?? 0)), key \(answer.cacheKey ?? "")")
        } else {
            Console.error("no image for \(source) at \(size) @\(scale)x in \(accept)")
        }
        if !answer.hit {
            throw ExitCodes.problemsFound
        }
    }

    private func pointSize() throws -> PointSize {
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]),
              width >= 0, height >= 0, width + height > 0 else {
            throw ValidationError("--size '\(size)' must be WIDTHxHEIGHT in points, e.g. 100x100 or 320x0")
        }
        return PointSize(width: width, height: height)
    }

    private func processorFilter() throws -> ProcessorFilter? {
        switch processors {
        case nil: return nil
        case "none", "-": return .unprocessed
        case "any": return .any
        case let tokens?:
            guard let list = Processor.parseList(tokens) else {
                throw ValidationError("--processors '\(tokens)' is not 'none', 'any' or processor tokens as written "
                                      + "in cache keys, e.g. 'round(24)' or 'grayscale,blur(2)'")
            }
            return .exactly(list)
        }
    }

    private func formats() throws -> [ImageFormat] {
        try accept.split(separator: ",").map { name in
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let format = ImageFormat(rawValue: trimmed == "jpg" ? "jpeg" : trimmed) else {
                throw ValidationError("--accept: unknown format '\(name)'; use e.g. avif,webp,jpeg,png")
            }
            return format
        }
    }
}
