import Foundation
import Testing
@testable import WarmCache

@Suite("Memory cache of blobs")
struct BlobMemoryCacheTests {
    func bytes(_ count: Int) -> Data { Data(repeating: 7, count: count) }

    @Test("evicts the least recently used entry past the count limit")
    func countLimit() {
        let cache = BlobMemoryCache(countLimit: 2, byteLimit: 1000)
        cache.insert(bytes(1), forKey: "a")
        cache.insert(bytes(1), forKey: "b")
        _ = cache.data(forKey: "a")  // a is now the most recent
        cache.insert(bytes(1), forKey: "c")
        #expect(cache.data(forKey: "a") != nil)
        #expect(cache.data(forKey: "b") == nil)
        #expect(cache.data(forKey: "c") != nil)
        #expect(cache.count == 2)
    }

    @Test("keeps total bytes within the byte limit and skips oversized entries")
    func byteLimit() {
        let cache = BlobMemoryCache(countLimit: 100, byteLimit: 100)
        cache.insert(bytes(60), forKey: "a")
        cache.insert(bytes(30), forKey: "b")
        cache.insert(bytes(30), forKey: "c")
        #expect(cache.data(forKey: "a") == nil)
        #expect(cache.byteCount == 60)
        cache.insert(bytes(101), forKey: "huge")
        #expect(cache.data(forKey: "huge") == nil)
        #expect(cache.byteCount == 60)
    }

    @Test("gives back half its bytes when memory is low and everything when it is critical, oldest first")
    func memoryPressure() {
        let cache = BlobMemoryCache(countLimit: 100, byteLimit: 100)
        for key in ["a", "b", "c", "d"] { cache.insert(bytes(25), forKey: key) }
        _ = cache.data(forKey: "a")
        cache.relieveMemoryPressure(critical: false)
        #expect(cache.byteCount == 50)
        #expect(cache.contains("a") && cache.contains("d") && !cache.contains("b") && !cache.contains("c"))
        cache.relieveMemoryPressure(critical: true)
        #expect(cache.count == 0 && cache.byteCount == 0)
    }

    @Test("replacing a key updates its size")
    func replace() {
        let cache = BlobMemoryCache(countLimit: 10, byteLimit: 100)
        cache.insert(bytes(50), forKey: "a")
        cache.insert(bytes(10), forKey: "a")
        #expect(cache.byteCount == 10)
        #expect(cache.count == 1)
    }

    @Test("stays consistent under concurrent use")
    func concurrent() async {
        let cache = BlobMemoryCache(countLimit: 16, byteLimit: 16 * 64)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<2_000 {
                        let key = "k\((index * 7 + task) % 40)"
                        if cache.data(forKey: key) == nil { cache.insert(Data(count: 64), forKey: key) }
                    }
                }
            }
        }
        #expect(cache.count <= 16)
        #expect(cache.byteCount == cache.count * 64)
    }
}
