/// The contact sheet's script: renders the JSON data block a page of rows at a time, filters,
/// sorts, pages, and draws the placeholders (ThumbHash and BlurHash decoders, a direct
/// translation of the Swift ones in `ThumbHash` and `BlurHash`, so the page needs nothing else).
///
/// Plain ES2017 with no dependencies; ``ContactSheetPage`` inlines it into the page.
enum ContactSheetScript {
    static let source = #"""
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("sheet-data").textContent);
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  const num = (n) => n.toLocaleString("en-US");
  // Decimal units, as the command line prints them.
  const bytes = (n) => n < 1000 ? n + " B" : n < 1e6 ? (n / 1e3).toFixed(1) + " KB"
    : n < 1e9 ? (n / 1e6).toFixed(1) + " MB" : (n / 1e9).toFixed(1) + " GB";

  // Rows as objects; a source's shown variants depend on the preset and format filters.
  const sources = D.sources.map((r) => ({
    id: r[0], lower: r[0].toLowerCase(), format: r[1], w: r[2], h: r[3], bytes: r[4],
    thumbhash: r[5], blurhash: r[6], average: r[7], keySource: r[9] === null ? r[0] : r[9],
    variants: r[8].map((v) => ({ tail: v[0], format: v[1], w: v[2], h: v[3], bytes: v[4], sha: v[5],
      presets: v[6] })),
  }));
  const state = { text: "", preset: -1, format: -1, sort: "identifier", perPage: 50, page: 0 };
  let shown = [];

  function fill(select, names, all) {
    select.innerHTML = '<option value="-1">' + all + "</option>"
      + names.map((n, i) => '<option value="' + i + '">' + esc(n) + "</option>").join("");
  }

  function header() {
    const s = D.summary;
    $("summary").innerHTML = s.path === ""
      ? "This run wrote no bundle" + (s.whyNoBundle ? ": " + esc(s.whyNoBundle) + "." : ".")
      : "<b>" + num(s.sources) + "</b> sources (" + bytes(s.originalBytes) + " of originals), <b>"
        + num(s.variants) + "</b> variants in " + num(s.files) + " files (" + bytes(s.bytes) + "), "
        + num(s.placeholders) + " placeholders · format " + esc(s.formatVersion) + " · " + esc(s.generator)
        + '<br><span class="path">' + esc(s.path) + "</span>";
    const table = (title, rows) => rows.length === 0 ? "" : "<table><caption>" + title
      + "</caption><tr><th></th><th>variants</th><th>bytes</th></tr>"
      + rows.map((g) => "<tr><td>" + esc(g[0]) + "</td><td>" + num(g[1]) + "</td><td>" + bytes(g[2])
        + "</td></tr>").join("") + "</table>";
    $("totals").innerHTML = table("By format", D.byFormat) + table("By preset", D.byPreset);
    fill($("preset"), D.presets, "all presets");
    fill($("format"), D.formats, "all formats");
  }

  function failures() {
    const list = D.failures.filter((f) => f[0].toLowerCase().includes(state.text));
    const section = $("failures");
    section.hidden = D.failures.length === 0;
    if (section.hidden) return;
    const limit = 200;
    const all = num(D.failures.length) + (D.failures.length === 1 ? " failure" : " failures");
    // With a filter the heading counts what the table shows, and an empty table is not drawn.
    const heading = list.length === D.failures.length ? all
      : (list.length === 0 ? "No failures match the filter" : num(list.length) + " match the filter")
        + " (" + all + " in this run)";
    section.innerHTML = "<h2>" + heading + "</h2>" + (list.length === 0 ? ""
      : "<table><tr><th>source</th><th>why</th><th>listed at</th></tr>"
      + list.slice(0, limit).map((f) => '<tr class="failure"><td class="id">' + esc(f[0])
        + (f[1] !== f[0] ? '<br><span class="path">' + esc(f[1]) + "</span>" : "") + "</td><td>" + esc(f[3])
        + '</td><td class="path">' + esc(f[2]) + "</td></tr>").join("") + "</table>")
      + (list.length > limit
        ? "<p>… and " + num(list.length - limit) + " more: narrow them with the filter.</p>" : "");
  }

  function select() {
    const text = state.text;
    shown = [];
    for (const s of sources) {
      if (text && !s.lower.includes(text)) continue;
      const variants = s.variants.filter((v) => (state.format < 0 || v.format === state.format)
        && (state.preset < 0 || v.presets.includes(state.preset)));
      if (variants.length === 0 && (state.format >= 0 || state.preset >= 0)) continue;
      let total = 0;
      for (const v of variants) total += v.bytes;
      shown.push({ s: s, variants: variants, total: total });
    }
    if (state.sort === "bytes-desc") shown.sort((a, b) => b.total - a.total);
    else if (state.sort === "bytes-asc") shown.sort((a, b) => a.total - b.total);
    else if (state.sort === "original-desc") shown.sort((a, b) => b.s.bytes - a.s.bytes);
  }

  function tile(s, v) {
    const format = D.formats[v.format];
    const src = D.objects + v.sha.slice(0, 2) + "/" + v.sha + "." + D.extensions[v.format];
    const presets = v.presets.map((p) => D.presets[p]).join(", ");
    return '<figure class="variant"><a class="frame" href="' + esc(src) + '"><img loading="lazy" decoding="async" src="'
      + esc(src) + '" width="' + v.w + '" height="' + v.h + '" alt="' + esc(format + " " + v.w + "x" + v.h)
      + '" data-format="' + esc(format) + '"></a><figcaption><b>' + esc(presets || "(no preset)") + "</b> "
      + v.w + "×" + v.h + " " + esc(format) + " · " + bytes(v.bytes)
      + '<code title="' + esc(s.keySource + "|" + v.tail)
      + '">' + esc(v.tail) + "</code></figcaption></figure>";
  }

  function row(item) {
    const s = item.s;
    const swatch = s.average ? '<span class="swatch" title="average colour #' + esc(s.average)
      + '" style="background:#' + esc(s.average) + '"></span>' : "";
    const canvas = (kind, hash) => hash ? '<canvas class="placeholder" data-kind="' + kind + '" data-hash="'
      + esc(hash) + '" data-ratio="' + (s.w / Math.max(1, s.h)) + '" title="' + kind + '"></canvas>' : "";
    return '<article class="source" data-bytes="' + item.total + '"><div class="about"><div class="placeholders">'
      + canvas("thumbhash", s.thumbhash) + canvas("blurhash", s.blurhash) + swatch + "</div><div>"
      + '<h3 class="id">' + esc(s.id) + "</h3><p>original " + s.w + "×" + s.h + " " + esc(s.format) + " · "
      + bytes(s.bytes) + " · " + item.variants.length + (item.variants.length === 1 ? " variant" : " variants")
      + ", " + bytes(item.total) + '</p></div></div><div class="variants">'
      + item.variants.map((v) => tile(s, v)).join("") + "</div></article>";
  }

  function render() {
    const pages = Math.max(1, Math.ceil(shown.length / state.perPage));
    state.page = Math.min(state.page, pages - 1);
    const start = state.page * state.perPage;
    const slice = shown.slice(start, start + state.perPage);
    const rows = $("rows");
    rows.innerHTML = slice.map(row).join("");
    let variants = 0;
    for (const item of slice) variants += item.variants.length;
    for (const c of rows.querySelectorAll("canvas.placeholder")) drawPlaceholder(c);
    const range = shown.length === 0 ? "no sources match"
      : "sources " + num(start + 1) + "–" + num(start + slice.length) + " of " + num(shown.length)
        + (shown.length < sources.length ? " (of " + num(sources.length) + ")" : "");
    for (const pager of document.querySelectorAll(".pager")) {
      pager.querySelector(".range").textContent = range + " · page " + (state.page + 1) + " of " + pages;
      pager.querySelector(".prev").disabled = state.page === 0;
      pager.querySelector(".next").disabled = state.page >= pages - 1;
    }
    document.body.dataset.matchingSources = shown.length;
    document.body.dataset.shownSources = slice.length;
    document.body.dataset.shownVariants = variants;
  }

  function update(resetPage) {
    if (resetPage) state.page = 0;
    select();
    render();
    failures();
    saveView();
  }

  // The view lives in the address's fragment (#q=cat&preset=thumb&format=webp&sort=bytes-desc&page=2),
  // so a reload keeps it and a link can point at it.
  function saveView() {
    const view = new URLSearchParams();
    if (state.text) view.set("q", state.text);
    if (state.preset >= 0) view.set("preset", D.presets[state.preset]);
    if (state.format >= 0) view.set("format", D.formats[state.format]);
    if (state.sort !== "identifier") view.set("sort", state.sort);
    if (state.perPage !== 50) view.set("per", state.perPage);
    if (state.page > 0) view.set("page", state.page + 1);
    const hash = view.toString();
    if (hash === location.hash.slice(1)) return;
    try {
      history.replaceState(null, "", hash ? "#" + hash : location.href.split("#")[0]);
    } catch (error) {
      // Some browsers refuse history changes on file:// pages; the view then just is not kept.
    }
  }

  function loadView() {
    const view = new URLSearchParams(location.hash.slice(1));
    state.text = (view.get("q") || "").toLowerCase();
    state.preset = D.presets.indexOf(view.get("preset"));
    state.format = D.formats.indexOf(view.get("format"));
    const sort = view.get("sort"), per = Number(view.get("per")), page = Number(view.get("page"));
    if ($("sort").querySelector('option[value="' + sort + '"]')) state.sort = sort;
    if ($("per-page").querySelector('option[value="' + per + '"]')) state.perPage = per;
    state.page = page > 0 ? page - 1 : 0;
    $("filter").value = state.text;
    $("preset").value = state.preset;
    $("format").value = state.format;
    $("sort").value = state.sort;
    $("per-page").value = state.perPage;
  }

  // ThumbHash: header, then 4-bit AC terms per channel; rendered at most 32x32.
  function thumbHashToRGBA(hash) {
    if (hash.length < 5) return null;
    const h24 = hash[0] | hash[1] << 8 | hash[2] << 16, h16 = hash[3] | hash[4] << 8;
    const lDC = (h24 & 63) / 63, pDC = (h24 >> 6 & 63) / 31.5 - 1, qDC = (h24 >> 12 & 63) / 31.5 - 1;
    const lScale = (h24 >> 18 & 31) / 31, hasAlpha = h24 >> 23 !== 0;
    const pScale = (h16 >> 3 & 63) / 63, qScale = (h16 >> 9 & 63) / 63, landscape = h16 >> 15 !== 0;
    const long = hasAlpha ? 5 : 7, short = h16 & 7;
    if (short === 0 || (hasAlpha && hash.length < 6)) return null;
    const lx = Math.max(3, landscape ? long : short), ly = Math.max(3, landscape ? short : long);
    const aDC = hasAlpha ? (hash[5] & 15) / 15 : 1, aScale = hasAlpha ? (hash[5] >> 4) / 15 : 1;
    let position = (hasAlpha ? 6 : 5) * 2;
    const read = (nx, ny, scale) => {
      const ac = [];
      for (let cy = 0; cy < ny; cy++) {
        for (let cx = cy > 0 ? 0 : 1; cx * ny < nx * (ny - cy); cx++, position++) {
          if (position >> 1 >= hash.length) return null;
          ac.push(((hash[position >> 1] >> ((position & 1) * 4) & 15) / 7.5 - 1) * scale);
        }
      }
      return ac;
    };
    const lAC = read(lx, ly, lScale), pAC = read(3, 3, pScale * 1.25), qAC = read(3, 3, qScale * 1.25);
    const aAC = hasAlpha ? read(5, 5, aScale) : [];
    if (!lAC || !pAC || !qAC || !aAC) return null;
    const ratio = (landscape ? long : short) / (landscape ? short : long);
    const w = ratio > 1 ? 32 : Math.round(32 * ratio), h = ratio > 1 ? Math.round(32 / ratio) : 32;
    const sum = (ac, nx, ny, fx, fy) => {
      let total = 0;
      for (let cy = 0, i = 0; cy < ny; cy++) {
        for (let cx = cy > 0 ? 0 : 1; cx * ny < nx * (ny - cy); cx++, i++) total += ac[i] * fx[cx] * fy[cy] * 2;
      }
      return total;
    };
    const rgba = new Uint8ClampedArray(w * h * 4), fx = [], fy = [];
    for (let y = 0, i = 0; y < h; y++) {
      for (let c = 0; c < 7; c++) fy[c] = Math.cos(Math.PI / h * (y + 0.5) * c);
      for (let x = 0; x < w; x++, i += 4) {
        for (let c = 0; c < 7; c++) fx[c] = Math.cos(Math.PI / w * (x + 0.5) * c);
        const l = lDC + sum(lAC, lx, ly, fx, fy), p = pDC + sum(pAC, 3, 3, fx, fy), q = qDC + sum(qAC, 3, 3, fx, fy);
        const a = hasAlpha ? aDC + sum(aAC, 5, 5, fx, fy) : 1;
        const b = l - 2 / 3 * p, r = (3 * l - b + q) / 2, g = r - q;
        const channels = [r, g, b, a];
        for (let k = 0; k < 4; k++) rgba[i + k] = Math.floor(Math.min(1, Math.max(0, channels[k])) * 255);
      }
    }
    return { w: w, h: h, rgba: rgba };
  }

  // BlurHash: base-83 fields, DC in sRGB, AC quantised; rendered at 32 px on the long side.
  const BASE83 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~";
  function base83(text) {
    let value = 0;
    for (const c of text) {
      const digit = BASE83.indexOf(c);
      if (digit < 0) return NaN;
      value = value * 83 + digit;
    }
    return value;
  }
  const toLinear = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const fromLinear = (v) => {
    v = Math.min(1, Math.max(0, v));
    return Math.floor((v <= 0.0031308 ? v * 12.92 : 1.055 * Math.pow(v, 1 / 2.4) - 0.055) * 255 + 0.5);
  };
  function blurHashToRGBA(hash, w, h) {
    const flag = base83(hash[0]), nx = flag % 9 + 1, ny = Math.floor(flag / 9) + 1;
    if (isNaN(flag) || hash.length !== 4 + 2 * nx * ny) return null;
    const maximum = (base83(hash[1]) + 1) / 166, dc = base83(hash.slice(2, 6));
    const factors = [[toLinear(dc >> 16 & 255), toLinear(dc >> 8 & 255), toLinear(dc & 255)]];
    const unquantise = (v) => { const c = (v - 9) / 9; return (c < 0 ? -1 : 1) * c * c * maximum; };
    for (let i = 1; i < nx * ny; i++) {
      const v = base83(hash.slice(4 + i * 2, 6 + i * 2));
      if (isNaN(v)) return null;
      factors.push([unquantise(Math.floor(v / 361)), unquantise(Math.floor(v / 19) % 19), unquantise(v % 19)]);
    }
    const rgba = new Uint8ClampedArray(w * h * 4);
    for (let y = 0, o = 0; y < h; y++) {
      for (let x = 0; x < w; x++, o += 4) {
        let r = 0, g = 0, b = 0;
        for (let j = 0; j < ny; j++) {
          const row = Math.cos(Math.PI * y * j / h);
          for (let i = 0; i < nx; i++) {
            const basis = Math.cos(Math.PI * x * i / w) * row, f = factors[j * nx + i];
            r += f[0] * basis; g += f[1] * basis; b += f[2] * basis;
          }
        }
        rgba[o] = fromLinear(r); rgba[o + 1] = fromLinear(g); rgba[o + 2] = fromLinear(b); rgba[o + 3] = 255;
      }
    }
    return { w: w, h: h, rgba: rgba };
  }

  function drawPlaceholder(canvas) {
    const hash = canvas.dataset.hash;
    let image = null;
    if (canvas.dataset.kind === "thumbhash") {
      image = thumbHashToRGBA(Uint8Array.from(atob(hash), (c) => c.charCodeAt(0)));
    } else {
      const ratio = canvas.dataset.ratio ? Number(canvas.dataset.ratio) : 1;
      image = blurHashToRGBA(hash, ratio >= 1 ? 32 : Math.max(1, Math.round(32 * ratio)),
        ratio >= 1 ? Math.max(1, Math.round(32 / ratio)) : 32);
    }
    if (!image) { canvas.classList.add("broken"); canvas.title += ": malformed"; return; }
    canvas.width = image.w;
    canvas.height = image.h;
    canvas.getContext("2d").putImageData(new ImageData(image.rgba, image.w, image.h), 0, 0);
  }

  // An image the browser cannot show (HEIC and JPEG XL in most browsers, or a missing file).
  $("rows").addEventListener("error", (event) => {
    const img = event.target;
    if (img.tagName !== "IMG") return;
    const figure = img.closest("figure");
    figure.classList.add("broken");
    const format = img.dataset.format;
    img.insertAdjacentHTML("afterend", '<span class="why">' + (format === "heic" || format === "jxl"
      ? "this browser cannot show " + esc(format) : "file missing or unreadable") + "</span>");
  }, true);

  let typing = 0;
  $("filter").addEventListener("input", (e) => {
    clearTimeout(typing);
    typing = setTimeout(() => { state.text = e.target.value.trim().toLowerCase(); update(true); }, 150);
  });
  $("preset").addEventListener("change", (e) => { state.preset = Number(e.target.value); update(true); });
  $("format").addEventListener("change", (e) => { state.format = Number(e.target.value); update(true); });
  $("sort").addEventListener("change", (e) => { state.sort = e.target.value; update(true); });
  $("per-page").addEventListener("change", (e) => { state.perPage = Number(e.target.value); update(true); });
  for (const pager of document.querySelectorAll(".pager")) {
    const turn = (step) => () => {
      state.page += step;
      render();
      saveView();
      window.scrollTo(0, $("controls").offsetTop);
    };
    pager.querySelector(".prev").addEventListener("click", turn(-1));
    pager.querySelector(".next").addEventListener("click", turn(1));
  }

  header();
  loadView();
  update(false);
  document.body.dataset.ready = "true";
})();
"""#
}
