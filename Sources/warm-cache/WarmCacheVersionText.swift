import WarmCache
import WarmCacheBuilder
import WarmCacheImaging

enum WarmCacheVersionText {
    static var text: String { "\(WarmCacheVersion.current)" }
}
