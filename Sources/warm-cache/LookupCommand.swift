import ArgumentParser
import Foundation
import WarmCache
import WarmCacheBuilder

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

    @Option(help: ArgumentHelp("The manifest, to suggest a source's identifier when a miss names a file it lists.",
                               discussion: "Default: the conventional manifest in the current directory, if any."))
    var manifest: String?

    @Flag(help: "Print one JSON object: hit, path, format, pixelWidth, pixelHeight, bytes, cacheKey, blob (reason on a miss).")
    var json = false

    struct Answer: Encodable {
        var hit: Bool
        var path: String?
        var format: String?
        var pixelWidth: Int?
        var pixelHeight: Int?
        var bytes: Int?
        var cacheKey: String?
        /// The blob's path inside the bundle, as the warm report and `inspect --json` name it.
        var blob: String?
        var hasAlpha: Bool?
        var placeholder: ImagePlaceholder?
        /// On a miss: why (unknown source, no accepted format, a filter excluded every variant).
        var reason: String?
        /// On a miss: the identifier to look up instead, when the input names a file the manifest lists.
        var suggestion: String?
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
        var answer: Answer
        do {
            let cache = try CacheBundle(contentsOf: URL(fileURLWithPath: bundle))
            let hit = try cache.bestImage(for: source, size: try pointSize(), scale: scale, accepting: try formats(),
                                          fit: fit.flatMap(FitMode.Kind.init(rawValue:)), processors: try processorFilter(),
                                          preset: preset)
            let placeholder = try cache.placeholder(for: SourceIdentifier(source))
            answer = Answer(hit: hit != nil, path: hit?.fileURL.path, format: hit?.format.rawValue,
                            pixelWidth: hit?.pixelSize.width, pixelHeight: hit?.pixelSize.height, bytes: hit?.byteCount,
                            cacheKey: hit?.cacheKey, blob: hit.map { BundleFormat.objectPath(sha256: $0.sha256, format: $0.format) }, hasAlpha: hit?.hasAlpha,
                            placeholder: placeholder)
            if hit == nil {
                (answer.reason, answer.suggestion) = try explainMiss(cache)
            }
        } catch {
            try Console.failure(Console.bundleProblem(error), json: json)
            throw ExitCode.failure
        }
        if json {
            try Console.json(VersionedJSON(answer, version: JSONVersion.lookup))
        } else if answer.hit, let path = answer.path {
            Console.line(path)
            Console.line("  \(answer.format ?? "") \(answer.pixelWidth ?? 0)x\(answer.pixelHeight ?? 0), "
                + "\(Console.bytes(answer.bytes ?? 0)), key \(answer.cacheKey ?? "")")
        } else {
            Console.error("no image for \(source) at \(size) @\(scale)x in \(accept): \(answer.reason ?? "no match")"
                + (answer.suggestion.map { "; the manifest lists it as '\($0)': look that up instead" } ?? ""))
        }
        if !answer.hit {
            throw ExitCodes.problemsFound
        }
    }

    /// Why nothing was found, and the identifier to use instead when the input names a manifest file.
    private func explainMiss(_ cache: CacheBundle) throws -> (String, String?) {
        let identifier = SourceIdentifier(source)
        guard try cache.contains(identifier) else {
            let suggestion = identifierForListedFile()
            let reason = "the bundle has no source '\(identifier.rawValue)'"
                + (suggestion == nil ? " (URLs are normalised; paths and keys must be written as in the manifest)" : "")
            return (reason, suggestion)
        }
        if let preset {
            let presets = try cache.presetNames()
            if !presets.contains(preset) {
                let close = ManifestSuggestions.closest(to: preset, in: presets)
                return ("the bundle has no preset '\(preset)'" + (close.map { " (did you mean '\($0)'?)" } ?? "")
                    + (presets.isEmpty ? "; its variants were baked without presets"
                        : "; its presets are " + presets.joined(separator: ", ")), nil)
            }
        }
        let all = try cache.images(for: identifier)
        let accepted = Set(try formats())
        let inFormat = all.filter { accepted.contains($0.format) }
        guard !inFormat.isEmpty else {
            let has = Set(all.map(\.format.rawValue)).sorted().joined(separator: ", ")
            return ("\(Self.noneOf(all.count)) is in an accepted format (it has \(has)); add one to --accept", nil)
        }
        // Which filter excluded everything: drop them to see whether anything is left.
        if try cache.bestImage(for: identifier, size: try pointSize(), scale: scale, accepting: try formats(),
                               processors: .any) != nil {
            var filters = [fit.map { "--fit \($0)" }, preset.map { "--preset \($0)" }].compactMap { $0 }
            let processorFilter = try processorFilter()
            if processorFilter != .any, preset == nil || processors != nil {
                filters.append(processors.map { "--processors \($0)" }
                    ?? "the default --processors none (its variants are processed; pass --processors any or a --preset)")
            }
            return ("\(filters.joined(separator: " and ")) excluded all its variants in \(accept)", nil)
        }
        return ("\(Self.noneOf(all.count)) matches the request", nil)
    }

    /// "none of its 3 variants", or "its only variant".
    private static func noneOf(_ count: Int) -> String {
        count == 1 ? "its only variant" : "none of its \(count) variants"
    }

    /// The identifier the manifest gives the file `source` names (a `path:` entry, usually with a
    /// `key:`), or `nil`. Reads `--manifest` or the conventional manifest; silent when there is none.
    private func identifierForListedFile() -> String? {
        let cwd = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        guard let manifestPath = manifest ?? ConventionalManifest.find(in: cwd),
              let plan = try? ManifestLoader().load(contentsOf: URL(fileURLWithPath: manifestPath, relativeTo: cwd))
        else { return nil }
        let wanted = URL(fileURLWithPath: source, relativeTo: cwd).standardizedFileURL.resolvingSymlinksInPath().path
        for planned in plan.sources {
            if case .file(let url) = planned.location,
               url.standardizedFileURL.resolvingSymlinksInPath().path == wanted,
               planned.identifier.rawValue != source {
                return planned.identifier.rawValue
            }
        }
        return nil
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
