import ArgumentParser
import Foundation
import WarmCacheBuilder
import WarmCache

/// `warm-cache inspect Images.warmcache`: what a bundle holds.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what a bundle holds: counts, bytes by format, variant and preset, largest entries, who signed it.",
        discussion: """
            With --list: every source with its variants (key, pixel size, format, bytes); add --json \
            for JSON. With --html FILE, also write a contact sheet: one page that shows every source \
            and variant as the real image, with placeholders and totals. It links to the bundle's files \
            by relative path: keep the page beside the bundle when moving it.
            """)

    @Argument(help: "The bundle directory (…/Name.warmcache).", completion: .directory)
    var bundle: String

    @Option(help: "How many of the largest entries to list.")
    var largest = 10

    @Flag(help: "List every source with its variants instead of the totals.")
    var list = false

    @Flag(help: "Print the report (or the --list) as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Also write a contact sheet (an HTML page of every image) to this file.",
                               valueName: "file.html"))
    var html: String?

    func validate() throws {
        try ContactSheetOutput.validate(html)
    }

    func run() throws {
        if let html {
            try ContactSheetOutput.write(ContactSheet(bundleURL: URL(fileURLWithPath: bundle)), to: html,
                                         quiet: json)
        }
        let bundleURL = URL(fileURLWithPath: bundle)
        let inspector = BundleInspector(bundleURL: bundleURL)
        if list {
            try printListing(inspector)
            return
        }
        let report: BundleReport
        do {
            report = try inspector.report(largest: largest)
        } catch {
            try Console.failure(Console.bundleProblem(error), json: json)
            throw ExitCode.failure
        }
        if json {
            try Console.json(VersionedJSON(InspectionJSON(report: report,
                                                         statement: try? StatementCheck.summary(of: bundleURL)?.get()),
                                           version: JSONVersion.inspect))
            return
        }
        Console.line("\(report.path)")
        Console.line("  format \(report.formatVersion), written by \(report.generator)")
        Console.line("  \(StatementCheck.inspectLine(for: bundleURL))")
        Console.line("  \(CountText.of(report.sources, "source")) (\(Console.bytes(report.sourceBytes)) of originals), "
            + "\(CountText.of(report.variants, "variant")) in \(CountText.of(report.blobs, "file")) "
            + "(\(Console.bytes(report.blobBytes)): what the app ships), \(CountText.of(report.placeholders, "placeholder"))")
        for (title, groups) in [("by format", report.byFormat), ("by preset", report.byPreset),
                                ("by variant", report.byVariant)] where !groups.isEmpty {
            Console.line("  \(title):")
            for group in groups {
                Console.line("    \(group.name.padding(toLength: 28, withPad: " ", startingAt: 0)) "
                    + "\(Self.column(group.variants, "variant")) \(Self.column(group.files, "file")) "
                    + "\(Console.bytes(group.bytes).leftPadded(9))")
            }
        }
        if !report.largest.isEmpty {
            Console.line("  largest:")
            for entry in report.largest {
                Console.line("    \(Console.bytes(entry.bytes).leftPadded(9))  \(entry.pixelWidth)x\(entry.pixelHeight) "
                    + "\(entry.format)  \(entry.cacheKey)")
            }
        }
    }
}

extension InspectCommand {
    private func printListing(_ inspector: BundleInspector) throws {
        let listing: BundleListing
        do {
            listing = try inspector.listing()
        } catch {
            try Console.failure(Console.bundleProblem(error), json: json)
            throw ExitCode.failure
        }
        if json {
            try Console.json(VersionedJSON(listing, version: JSONVersion.inspectList))
            return
        }
        for source in listing.sources {
            Console.line("\(source.identifier)  \(source.pixelWidth)x\(source.pixelHeight) \(source.format), "
                + "\(Console.bytes(source.bytes))")
            for variant in source.variants {
                let presets = variant.presets.isEmpty ? "" : "  [\(variant.presets.joined(separator: ", "))]"
                Console.line("  \("\(variant.pixelWidth)x\(variant.pixelHeight)".padding(toLength: 10, withPad: " ", startingAt: 0)) "
                    + "\(variant.format.padding(toLength: 5, withPad: " ", startingAt: 0)) "
                    + "\(Console.bytes(variant.bytes).leftPadded(9))  \(variant.cacheKey)\(presets)"
                    + Self.perceptualNote(variant))
            }
        }
    }
}

extension InspectCommand {
    /// `  (quality 63 reached 82.4 of target 82)` for a variant with a quality target.
    static func perceptualNote(_ variant: VariantReport) -> String {
        guard let target = variant.qualityTarget, let quality = variant.encoderQuality,
              let score = variant.qualityScore else { return "" }
        let reached = score >= Double(target) ? "reached" : "only reached"
        return "  (quality \(quality) \(reached) \(String(format: "%.1f", score)) of target \(target))"
    }
}

extension InspectCommand {
    /// `    1 variant ` or `   12 variants`: a count right-aligned in 5 and its noun, padded to the
    /// plural's width so the columns stay aligned.
    static func column(_ count: Int, _ noun: String) -> String {
        String(count).leftPadded(5) + " " + CountText.noun(noun, count: count).padding(toLength: noun.count + 1, withPad: " ", startingAt: 0)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
