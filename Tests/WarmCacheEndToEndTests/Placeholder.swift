import Testing

@Test func placeholder_WarmCacheEndToEndTests() { #expect(Bool(true)) }
