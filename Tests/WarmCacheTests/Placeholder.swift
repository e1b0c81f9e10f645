import Testing

@Test func placeholder_WarmCacheTests() { #expect(Bool(true)) }
