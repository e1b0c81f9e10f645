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

        /// `plan --json` counts sources and variants under the names every output uses, and gives
        /// the counts per format and preset as `byFormat` and `byPreset`, lists of `{name, variants}`
        /// largest first, as `inspect` and the report do (without bytes: nothing is encoded yet).
        private enum CodingKeys: String, CodingKey {
            case sourceCount = "sources", remoteSourceCount = "remoteSources", localSourceCount = "localSources"
            case variantCount = "variants", byFormat, byPreset
        }

        private struct Group: Encodable {
            var name: String
            var variants: Int
        }

        public func encode(to encoder: any Encoder) throws {
            func groups(_ counts: [String: Int]) -> [Group] {
                counts.map { Group(name: $0.key, variants: $0.value) }
                    .sorted { ($0.variants, $1.name) > ($1.variants, $0.name) }
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(sourceCount, forKey: .sourceCount)
            try container.encode(remoteSourceCount, forKey: .remoteSourceCount)
            try container.encode(localSourceCount, forKey: .localSourceCount)
            try container.encode(variantCount, forKey: .variantCount)
            try container.encode(groups(variantsByFormat), forKey: .byFormat)
            try container.encode(groups(variantsByPreset), forKey: .byPreset)
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
