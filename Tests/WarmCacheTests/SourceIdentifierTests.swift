import Testing
@testable import WarmCache

@Suite("Source identifiers")
struct SourceIdentifierTests {
    @Test("normalises http(s) URLs", arguments: [
        ("HTTPS://CDN.Example.COM/a.jpg", "https://cdn.example.com/a.jpg"),
        ("https://cdn.example.com:443/a.jpg", "https://cdn.example.com/a.jpg"),
        ("http://cdn.example.com:80/a.jpg", "http://cdn.example.com/a.jpg"),
        ("http://cdn.example.com:8080/a.jpg", "http://cdn.example.com:8080/a.jpg"),
        ("https://cdn.example.com", "https://cdn.example.com/"),
        ("https://cdn.example.com?x=1", "https://cdn.example.com/?x=1"),
        ("https://cdn.example.com/a.jpg#frag", "https://cdn.example.com/a.jpg"),
        ("https://cdn.example.com/%7euser/%2fa%2Fb.jpg", "https://cdn.example.com/~user/%2Fa%2Fb.jpg"),
        ("https://cdn.example.com/a.jpg?b=2&a=1", "https://cdn.example.com/a.jpg?b=2&a=1"),
        ("https://User:Pw@CDN.example.com/A.jpg", "https://User:Pw@cdn.example.com/A.jpg"),
    ])
    func normalises(input: String, expected: String) {
        #expect(SourceIdentifier(input).rawValue == expected)
    }

    @Test("keeps paths and custom keys verbatim", arguments: [
        "Examples/Images/coffee.png", "asset://coffee", "./a b.png", "ftp://host/x.png",
    ])
    func verbatim(text: String) {
        #expect(SourceIdentifier(text).rawValue == text)
    }
}
