import Testing

@Test func placeholder_WarmCacheBuilderTests() { #expect(Bool(true)) }
