import WarmCache
import WarmCacheImaging

extension WarmPlan {
    /// Counts for `warm-cache plan`: how much work the manifest describes.
    public struct Summary: Sendable, Hashable, Encodable, CustomStringConvertible {
        public var sourceCount: Int
        public var remoteSourceCount: Int
        public var localSourceCount: Int
        public var variantCount: Int
        /// Variants per requested format (`jpeg`, `webp`, ..., or `auto`).
        public var variantsByFormat: [String: Int]
        /// Variants per preset name (``PlannedVariant/entryPreset`` for entry-described ones).
        public var variantsByPreset: [String: Int]

        /// `plan --json` counts sources and variants under the names every output uses.
        private enum CodingKeys: String, CodingKey {
            case sourceCount = "sources", remoteSourceCount = "remoteSources", localSourceCount = "localSources"
            case variantCount = "variants", variantsByFormat, variantsByPreset
        }

        /// For example:
        ///
        ///     5 sources (0 remote, 5 local), 42 variants
        ///       formats: avif 3, jpeg 21, png 3, webp 15
        ///       presets: avatar 6, card 18, hero 6, thumb 12
        public var description: String {
            func list(_ counts: [String: Int]) -> String {
                counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            }
            var lines = ["\(CountText.of(sourceCount, "source")) (\(remoteSourceCount) remote, \(localSourceCount) local),"
                         + " " + CountText.of(variantCount, "variant")]
            if !variantsByFormat.isEmpty { lines.append("  formats: " + list(variantsByFormat)) }
            if !variantsByPreset.isEmpty { lines.append("  presets: " + list(variantsByPreset)) }
            return lines.joined(separator: "\n")
        }
    }

    public var summary: Summary {
        // Counted by value, named once at the end: a plan can hold millions of variants.
        var byFormat: [FormatChoice: Int] = [:]
        var byPreset: [String: Int] = [:]
        var variantCount = 0
        var remote = 0
        for source in sources {
            if source.isRemote { remote += 1 }
            variantCount += source.variants.count
            for variant in source.variants {
                byFormat[variant.request.format, default: 0] += 1
                byPreset[variant.preset, default: 0] += 1
            }
        }
        var formatNames: [String: Int] = [:]
        for (format, count) in byFormat {
            formatNames[format.description, default: 0] += count
        }
        return Summary(sourceCount: sources.count, remoteSourceCount: remote, localSourceCount: sources.count - remote,
                       variantCount: variantCount, variantsByFormat: formatNames, variantsByPreset: byPreset)
    }
}
