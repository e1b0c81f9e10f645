/// The version of this WarmCache build, recorded as the bundle's generator.
public enum WarmCacheVersion {
    public static let current = "0.1.0"
}
