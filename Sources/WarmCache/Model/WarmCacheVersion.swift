/// The version of this WarmCache build: recorded as a bundle's generator, printed by
/// `warm-cache --version`, and sent in the updater's `User-Agent`.
public enum WarmCacheVersion {
    public static let current = "0.1.0"
}
