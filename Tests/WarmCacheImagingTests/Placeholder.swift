import Testing

@Test func placeholder_WarmCacheImagingTests() { #expect(Bool(true)) }
