/// The contact sheet's stylesheet: system fonts only, light and dark (`prefers-color-scheme`),
/// images on a checkerboard so transparency (rounded corners, padding) is visible.
enum ContactSheetStyle {
    static let css = """
:root {
  color-scheme: light dark;
  --bg: #f6f6f4; --card: #ffffff; --text: #1d1d1f; --muted: #6e6e73; --line: #dcdcdf;
  --accent: #0a66d8; --bad: #c4281c; --check-a: #ffffff; --check-b: #e4e4e7;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #161618; --card: #222225; --text: #ececef; --muted: #a1a1a8; --line: #38383d;
    --accent: #5ea2ff; --bad: #ff6b5e; --check-a: #2d2d31; --check-b: #3a3a3f;
  }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 48px; background: var(--bg); color: var(--text);
  font: 14px/1.4 -apple-system, BlinkMacSystemFont, "Segoe UI", system-ui, sans-serif; }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 16px; margin: 0 0 8px; }
.path, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px;
  color: var(--muted); overflow-wrap: anywhere; }
#summary { margin: 0 0 12px; }
#totals { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; margin-bottom: 16px; }
table { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); }
caption { text-align: left; font-weight: 600; padding: 0 0 4px; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
#failures { margin-bottom: 16px; }
#failures h2 { color: var(--bad); }
#failures th, #failures td { text-align: left; }
#failures .id { overflow-wrap: anywhere; min-width: 16em; max-width: 40vw; }
#controls { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 8px; align-items: center;
  padding: 8px 0; background: var(--bg); border-bottom: 1px solid var(--line); }
#controls input { flex: 1 1 240px; }
input, select, button { font: inherit; color: inherit; background: var(--card); border: 1px solid var(--line);
  border-radius: 6px; padding: 4px 8px; }
button:disabled { opacity: 0.4; }
.pager { display: flex; gap: 8px; align-items: center; color: var(--muted); }
#controls .pager { flex-basis: 100%; }
.source { background: var(--card); border: 1px solid var(--line); border-radius: 10px; margin: 12px 0;
  padding: 12px; content-visibility: auto; contain-intrinsic-size: auto 260px; }
.about { display: flex; gap: 12px; align-items: flex-start; margin-bottom: 8px; }
.about p { margin: 2px 0 0; color: var(--muted); }
.id { font-size: 14px; margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  overflow-wrap: anywhere; }
.placeholders { display: flex; gap: 4px; align-items: flex-start; flex: none; }
.placeholder { width: 48px; height: auto; border-radius: 4px; image-rendering: auto; }
.placeholder.broken { outline: 2px solid var(--bad); }
.swatch { width: 20px; height: 20px; border-radius: 50%; border: 1px solid var(--line); }
.variants { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-start; }
.variant { margin: 0; width: 200px; }
.frame { display: flex; align-items: center; justify-content: center; height: 160px;
  background: repeating-conic-gradient(var(--check-a) 0% 25%, var(--check-b) 0% 50%) 50% / 16px 16px;
  border: 1px solid var(--line); border-radius: 4px; }
.frame img { display: block; max-width: 100%; max-height: 100%; width: auto; height: auto; }
.broken .frame { border-color: var(--bad); }
.broken img { display: none; }
.why { color: var(--bad); font-size: 12px; padding: 8px; }
figcaption { font-size: 12px; margin-top: 4px; }
figcaption code { display: block; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
a { color: var(--accent); }
"""
}
