import Foundation

/// Assembles the contact sheet's HTML: markup, inline style and script, and the data block.
enum ContactSheetPage {
    static func html(title: String, data: ContactSheetData) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // `<` never appears raw, so the data cannot close its <script> element early.
        let json = String(decoding: try encoder.encode(data), as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c")
        let pager = """
            <div class="pager"><button class="prev" type="button">‹ Previous</button>\
            <button class="next" type="button">Next ›</button><span class="range"></span></div>
            """
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="generator" content="warm-cache">
            <title>\(escape(title)) · WarmCache contact sheet</title>
            <style>
            \(ContactSheetStyle.css)
            </style>
            </head>
            <body>
            <header>
            <h1>\(escape(title))</h1>
            <p id="summary"></p>
            </header>
            <section id="totals"></section>
            <section id="failures" hidden></section>
            <nav id="controls">
            <input id="filter" type="search" placeholder="Filter by identifier" aria-label="Filter by identifier">
            <select id="preset" aria-label="Preset"></select>
            <select id="format" aria-label="Format"></select>
            <select id="sort" aria-label="Sort">
            <option value="identifier">by identifier</option>
            <option value="bytes-desc">largest variants first</option>
            <option value="bytes-asc">smallest variants first</option>
            <option value="original-desc">largest originals first</option>
            </select>
            <select id="per-page" aria-label="Sources per page">
            <option value="25">25 per page</option>
            <option value="50" selected>50 per page</option>
            <option value="100">100 per page</option>
            <option value="200">200 per page</option>
            </select>
            \(pager)
            </nav>
            <noscript><p>The contact sheet needs JavaScript to show its rows.</p></noscript>
            <main id="rows"></main>
            <nav>\(pager)</nav>
            <script type="application/json" id="sheet-data">\(json)</script>
            <script>
            \(ContactSheetScript.source)
            </script>
            </body>
            </html>

            """
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
