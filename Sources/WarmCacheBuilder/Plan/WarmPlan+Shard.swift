import WarmCache

extension WarmPlan {
    /// The part of this plan that `shard` warms: its sources only, everything else unchanged
    /// (the manifest fingerprint included, so the parts of one manifest can be merged).
    public func restricted(to shard: Shard) -> WarmPlan {
        var part = self
        part.sources = sources.filter { shard.contains($0.identifier) }
        part.shard = shard
        return part
    }

    /// The plans of all `count` shards, in shard order (for `plan --shards N`).
    public func shards(_ count: Int) throws(ShardError) -> [WarmPlan] {
        _ = try Shard(index: 1, count: count)
        var parts = [[PlannedSource]](repeating: [], count: count)
        for source in sources {
            parts[Shard.index(of: source.identifier, count: count) - 1].append(source)
        }
        var plans: [WarmPlan] = []
        for (offset, sources) in parts.enumerated() {
            var part = self
            part.sources = sources
            part.shard = try Shard(index: offset + 1, count: count)
            plans.append(part)
        }
        return plans
    }
}
