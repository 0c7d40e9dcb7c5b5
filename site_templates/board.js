// The board's behaviour. Data comes from the JSON block via JSON.parse; contributor strings are
// written with textContent only (never innerHTML); links are https: only.
//
// The script sits in <head> (the page's one script, by its hash): the colour scheme a reader
// chose is set before the first paint, so a dark choice never flashes light on a long page;
// the rest waits for the document.
(function () {
"use strict";
var SCHEME_KEY = "bench-board-scheme";
function storedScheme() {
  // file: pages, private windows and disabled storage may refuse: then the system's scheme
  try {
    var s = window.localStorage.getItem(SCHEME_KEY);
    return s === "light" || s === "dark" ? s : "";
  } catch (err) { return ""; }
}
function applyScheme(s) {
  if (s) document.documentElement.setAttribute("data-scheme", s);
  else document.documentElement.removeAttribute("data-scheme");
}
applyScheme(storedScheme());
document.addEventListener("DOMContentLoaded", function () {
  // The scheme switch: "as the system" (the default, what a reader without this script gets),
  // light or dark, remembered for the next visit and for the board's other pages.
  var scheme = document.getElementById("scheme");
  if (scheme) {
    scheme.value = storedScheme();
    scheme.addEventListener("change", function () {
      applyScheme(scheme.value);
      try {
        if (scheme.value) window.localStorage.setItem(SCHEME_KEY, scheme.value);
        else window.localStorage.removeItem(SCHEME_KEY);
      } catch (err) { /* not remembered: this visit only */ }
    });
    // another tab of the board changed it
    window.addEventListener("storage", function (event) {
      if (event.key !== SCHEME_KEY) return;
      scheme.value = storedScheme();
      applyScheme(scheme.value);
    });
    scheme.closest(".scheme-switch").hidden = false;
  }
  var data = JSON.parse(document.getElementById("board-data").textContent);
  var cohorts = data.board.cohorts;
  var main = document.querySelector("main");
  var rowLimit = Number(main.getAttribute("data-row-limit")) || 50;
  var topPairs = Number(main.getAttribute("data-top-pairs")) || 30;
  // the filters are hidden in the markup: a reader without this script is not offered
  // controls that do nothing
  document.querySelector("nav.controls").hidden = false;
  // Lookups by key, built once: a cohort's entries, and in how many cohorts a key appears.
  var entryOf = cohorts.map(function (c) {
    var m = new Map();
    c.entries.forEach(function (e) { m.set(e.key, e); });
    return m;
  });
  var keyCount = new Map();
  cohorts.forEach(function (c) { c.entries.forEach(function (e) { keyCount.set(e.key, (keyCount.get(e.key) || 0) + 1); }); });

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  // As the table (Python's "%.3f") prints: toFixed, except that an exact tie (a value whose
  // 2^(digits+1) multiple is an odd integer, e.g. 0.5625) rounds half to even as Python does
  // ("0.562", where toFixed gives "0.563").
  function fmt(x, digits) {
    if (x === null || x === undefined) return "—";
    var n = Number(x), a = Math.abs(n), t = a * Math.pow(2, digits + 1);
    if (Number.isInteger(t) && t % 2 !== 0) {
      var low = Math.floor(a * Math.pow(10, digits));
      if (low % 2 === 0) return (n < 0 ? "-" : "") + (low / Math.pow(10, digits)).toFixed(digits);
    }
    return n.toFixed(digits);
  }
  // An estimate as the table shows it: "0.708 [0.470, 1.000]" for the eye, "0.708, 95 %
  // interval 0.470 to 1.000" for a screen reader (the brackets are hidden from it).
  var pct = fmt(data.board.level * 100, 0);
  function est(e) {
    if (!e) return document.createTextNode("—");
    var lo = fmt(e.lo, 3), hi = fmt(e.hi, 3), out = el("span", fmt(e.value, 3) + " ");
    out.appendChild(el("span", "[" + lo + ", " + hi + "]")).setAttribute("aria-hidden", "true");
    out.appendChild(el("span", ", " + pct + " % interval " + lo + " to " + hi, "sr-only"));
    return out;
  }
  // A suite's own page (suite-<name>.html) tells the transcript viewer where "the board" is;
  // the page sends no referrer, so it goes in the link's query.
  function fromPage() {
    var page = location.pathname.split("/").pop();
    return /^[a-z0-9][a-z0-9-]{0,80}\.html$/.test(page) && page !== "index.html" ? "?from=" + page : "";
  }
  function safeLink(url, text) {
    var parsed;
    try { parsed = new URL(url); } catch (err) { return el("span", text); }
    if (parsed.protocol !== "https:") return el("span", text);
    var a = el("a", text);
    a.href = parsed.href;
    a.rel = "noopener noreferrer nofollow";
    return a;
  }

  // Each cohort's rows, read from the markup once: the values sorting and filtering use.
  var tables = [];
  document.querySelectorAll("section.cohort").forEach(function (section) {
    var ci = Number(section.id.slice(7));
    var table = section.querySelector("table.board");
    var rows = Array.prototype.map.call(table.tBodies[0].rows, function (tr) {
      return {
        tr: tr,
        order: Number(tr.getAttribute("data-order")),
        text: (tr.getAttribute("data-name") + " " + tr.getAttribute("data-key")).toLowerCase(),
        verified: tr.getAttribute("data-verified") === "true",
        languages: tr.getAttribute("data-languages").split(" "),
        matches: true,
        hidden: tr.hidden
      };
    });
    // the marks of the cohort's charts (a point and its label carry the row's key) and the note
    // beside the charts that says which rows they show
    var marks = Array.prototype.map.call(section.querySelectorAll("figure.chart [data-key]"), function (node) {
      return { node: node, key: node.getAttribute("data-key"), out: false };
    });
    var plotted = new Set();
    marks.forEach(function (m) { plotted.add(m.key); });
    tables[ci] = {
      section: section, table: table, rows: rows, expanded: false,
      marks: marks, plotted: plotted, chartNote: section.querySelector("p.chart-filtered"),
      more: section.querySelector("p.rows-more"),
      status: section.querySelector("p.rows-more .rows-status"),
      toggle: section.querySelector("p.rows-more .rows-toggle")
    };
  });
  var rowOf = new Map();
  tables.forEach(function (t, ci) { t.rows.forEach(function (r) { rowOf.set(ci + "\u0000" + r.tr.getAttribute("data-key"), r); }); });

  // Shows the matching rows, the first rowLimit of them unless the cohort is expanded. Writes
  // only what changes, and reads no layout.
  function showRows(t) {
    var shown = 0, matching = 0;
    t.rows.forEach(function (r) {
      var hide = !r.matches;
      if (r.matches) {
        matching += 1;
        if (!t.expanded && matching > rowLimit) hide = true; else shown += 1;
      }
      if (hide !== r.hidden) { r.tr.hidden = hide; r.hidden = hide; }
    });
    var cut = matching > rowLimit, none = matching === 0;
    if (t.more.hidden !== !(cut || none)) t.more.hidden = !(cut || none);
    if (t.toggle.hidden !== none) t.toggle.hidden = none;
    // an emptied table says why, rather than showing headers over nothing
    if (none) t.status.textContent = "No entry of this cohort matches the filters.";
    // an emptied cohort folds to its title and that sentence: a search that matches one
    // cohort of several does not leave the reader scrolling past empty tables and charts
    if (t.section.classList.contains("emptied") !== none) t.section.classList.toggle("emptied", none);
    if (cut) {
      var n = matching.toLocaleString("en-US");
      t.status.textContent = t.expanded
        ? "Showing all " + n + " matching rows."
        : "Showing the first " + rowLimit + " of " + n + " matching rows (sorting, search and filters act on all of them).";
      t.toggle.textContent = t.expanded ? "Show the first " + rowLimit + " rows" : "Show all " + n + " rows";
      t.toggle.setAttribute("aria-expanded", t.expanded ? "true" : "false");
    }
  }
  tables.forEach(function (t) {
    t.toggle.addEventListener("click", function () { t.expanded = !t.expanded; showRows(t); });
  });
  // Paper has no "show all" button: a printout has every row the filters match, and the
  // screen goes back to the rows it showed.
  window.addEventListener("beforeprint", function () {
    tables.forEach(function (t) { t.printing = !t.expanded; if (t.printing) { t.expanded = true; showRows(t); } });
  });
  window.addEventListener("afterprint", function () {
    tables.forEach(function (t) { if (t.printing) { t.printing = t.expanded = false; showRows(t); } });
  });

  // Sorting: stable, the board's own order (rank, headline as shown, entrant, run id) breaks
  // ties, so tied entries stay together; the headline sorts as shown (3 places, data-headline),
  // never by floating-point noise; empty values always sort last.
  function sortValue(tr, key) {
    var raw;
    var column = key.indexOf("family:") === 0 ? "family" : key.indexOf("category:") === 0 ? "category" : null;
    if (column) {
      var name = key.slice(column.length + 1), cells = tr.cells, cell = null;
      for (var i = 0; i < cells.length; i++) {
        if (cells[i].getAttribute("data-" + column) === name) { cell = cells[i]; break; }
      }
      raw = cell ? cell.getAttribute("data-value") : "";
    } else {
      raw = tr.getAttribute("data-" + key);
    }
    if (raw === null || raw === "") return null;
    if (key === "name" || key === "date") return raw;
    return Number(raw);
  }
  // Names sort as a reader expects in any script: by a collator (accents and case aside,
  // digits as numbers: "entrant 2" before "entrant 10"), never by UTF-16 code units.
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  function compareValues(a, b) { return typeof a === "string" ? collator.compare(a, b) : (a < b ? -1 : a > b ? 1 : 0); }
  // The first click on a column puts its best values first: the highest for a score, the
  // newest date; the lowest for a rank, an error rate, a cost or a latency; names A to Z.
  function bestFirstDescending(key) {
    return key === "headline" || key === "pooled" || key === "passk" || key === "frontier" ||
      key === "date" || key.indexOf("family:") === 0 || key.indexOf("category:") === 0;
  }
  function sortTable(t, key, button) {
    var was = button.getAttribute("data-sorted");
    var ascending = was ? was !== "ascending" : !bestFirstDescending(key);
    var direction = ascending ? "ascending" : "descending";
    t.table.querySelectorAll("th button").forEach(function (b) { b.removeAttribute("data-sorted"); });
    t.table.querySelectorAll("th").forEach(function (th) { th.removeAttribute("aria-sort"); });
    button.setAttribute("data-sorted", direction);
    // aria-sort belongs on the column header (a button's is ignored); the date, a minor
    // button in the entrant column's header, leaves that header unmarked
    if (!button.classList.contains("minor")) button.closest("th").setAttribute("aria-sort", direction);
    var keyed = t.rows.map(function (r) { return { r: r, v: sortValue(r.tr, key) }; });
    keyed.sort(function (a, b) {
      var va = a.v, vb = b.v;
      if (va === null && vb !== null) return 1;
      if (vb === null && va !== null) return -1;
      if (va !== null) {
        var c = compareValues(va, vb);
        if (c !== 0) return c * (ascending ? 1 : -1);
      }
      return a.r.order - b.r.order;
    });
    t.rows = keyed.map(function (k) { return k.r; });
    var fragment = document.createDocumentFragment();
    t.rows.forEach(function (r) { fragment.appendChild(r.tr); });
    t.table.tBodies[0].appendChild(fragment);
    showRows(t);
  }
  // A column's explanation shows under its header while pointed at or focused (board.css);
  // Escape hides it until the pointer or the focus leaves that header.
  tables.forEach(function (t) {
    // ... and a screen reader hears it as the description of the header's buttons: in the
    // markup (no script needed), except a suite category's, whose button is set here
    t.table.tHead.querySelectorAll("th").forEach(function (th) {
      var help = th.querySelector(".col-help");
      if (!help) return;
      th.querySelectorAll("button[data-sort]:not([aria-describedby])").forEach(function (b) { b.setAttribute("aria-describedby", help.id); });
    });
    t.table.tHead.addEventListener("keydown", function (event) {
      var th = event.key === "Escape" && event.target.closest("th");
      if (th) th.classList.add("help-off");
    });
    t.table.tHead.querySelectorAll("th").forEach(function (th) {
      function back() { th.classList.remove("help-off"); }
      th.addEventListener("focusout", back);
      th.addEventListener("mouseleave", back);
    });
  });
  tables.forEach(function (t) {
    t.table.querySelectorAll("th button[data-sort]").forEach(function (button) {
      button.addEventListener("click", function () { sortTable(t, button.getAttribute("data-sort"), button); });
    });
  });

  // Filters: cohort, family (which family columns show), language (entries with tasks in it),
  // verified only, entrant text.
  var fCohort = document.getElementById("filter-cohort");
  var fFamily = document.getElementById("filter-family");
  var fLanguage = document.getElementById("filter-language");
  var fVerified = document.getElementById("filter-verified");
  var fText = document.getElementById("filter-text");
  var familyShown = "";
  function applyFilters() {
    var text = fText.value.trim().toLowerCase();
    var language = fLanguage.value, verified = fVerified.checked;
    var familyChanged = fFamily.value !== familyShown;
    familyShown = fFamily.value;
    tables.forEach(function (t) {
      var section = t.section;
      var off = fCohort.value !== "" && section.getAttribute("data-cohort") !== fCohort.value;
      if (section.hidden !== off) section.hidden = off;
      if (familyChanged) {
        section.classList.toggle("hide-family", familyShown !== "");
        section.querySelectorAll("[data-family]").forEach(function (cell) {
          cell.classList.toggle("family-shown", cell.getAttribute("data-family") === familyShown);
        });
      }
      var matching = new Set();
      t.rows.forEach(function (r) {
        r.matches = !(verified && !r.verified) &&
          (language === "" || r.languages.indexOf(language) !== -1) &&
          (text === "" || r.text.indexOf(text) !== -1);
        if (r.matches) matching.add(r.tr.getAttribute("data-key"));
      });
      showRows(t);
      showMarks(t, matching);
    });
  }
  // When a filter leaves few points (a search for one's own entry), each of them gets a label
  // with its name, as the labelled points have (the build labels only the frontier and the
  // best): written with textContent from the point's own title, taken away at the next change.
  var SVG = "http://www.w3.org/2000/svg", FOUND = 10, LABEL_MAX = 36;
  function labelFound(t, matching, shown) {
    t.section.querySelectorAll("figure.chart text.found").forEach(function (n) { n.remove(); });
    if (shown === t.plotted.size || shown > FOUND) return;
    t.section.querySelectorAll("figure.chart svg").forEach(function (svg) {
      var labelled = new Set();
      svg.querySelectorAll("g.labels text[data-key]").forEach(function (n) { labelled.add(n.getAttribute("data-key")); });
      var layer = svg.querySelector("g.labels"), view = svg.viewBox.baseVal;
      // the boxes taken: the labels shown, then each one added (charts.py's _place, simpler)
      var taken = [];
      layer.querySelectorAll("text:not(.filtered-out)").forEach(function (n) {
        var b = n.getBBox();
        taken.push([b.x, b.y, b.x + b.width, b.y + b.height]);
      });
      function clear(b) {
        return b[0] >= 0 && b[2] <= view.width && b[1] >= 0 && b[3] <= view.height && taken.every(function (o) {
          return !(b[0] < o[2] && o[0] < b[2] && b[1] < o[3] && o[1] < b[3]);
        });
      }
      svg.querySelectorAll("g.point[data-key]").forEach(function (g) {
        var key = g.getAttribute("data-key");
        if (!matching.has(key) || labelled.has(key)) return;
        var box = g.querySelector(".mark").getBBox(), x = box.x + box.width / 2, y = box.y + box.height / 2;
        var name = g.querySelector("title").textContent.split("\n")[0];
        var text = name.length > LABEL_MAX ? name.slice(0, LABEL_MAX - 1) + "…" : name;
        var w = text.length * 6.1, spots = [];
        [4, -6, 14, -16, 24, -26].forEach(function (dy) {
          spots.push([true, x + 7, y + dy, [x + 7, y + dy - 10, x + 7 + w, y + dy + 3]]);
          spots.push([false, x - 7, y + dy, [x - 7 - w, y + dy - 10, x - 7, y + dy + 3]]);
        });
        var spot = spots.filter(function (sp) { return clear(sp[3]); })[0] ||
          spots[x > view.width * 0.6 ? 1 : 0];
        taken.push(spot[3]);
        var label = document.createElementNS(SVG, "text");
        label.textContent = text;
        label.setAttribute("x", spot[1].toFixed(1));
        label.setAttribute("y", spot[2].toFixed(1));
        label.setAttribute("text-anchor", spot[0] ? "start" : "end");
        label.setAttribute("class", "top found");
        label.setAttribute("data-key", key);
        layer.appendChild(label);
      });
    });
  }
  // The charts show the rows the filters match (every one of them, not only the table's first
  // rowLimit), and the note beside them says so while a filter leaves rows out; the axes and
  // the frontier line stay those of all the cohort's rows (drawn at build time).
  function showMarks(t, matching) {
    var shown = 0;
    t.plotted.forEach(function (key) { if (matching.has(key)) shown += 1; });
    t.marks.forEach(function (m) {
      var out = !matching.has(m.key);
      if (out !== m.out) { m.out = out; m.node.classList.toggle("filtered-out", out); }
    });
    labelFound(t, matching, shown);
    if (!t.chartNote) return;
    var all = t.plotted.size, cut = shown < all;
    if (t.chartNote.hidden !== !cut) t.chartNote.hidden = !cut;
    if (!cut) return;
    var n = all.toLocaleString("en-US");
    t.chartNote.textContent = shown === 0
      ? "The charts below show none of the " + n + " plotted rows: none matches the filters."
      : "The charts below show " + shown.toLocaleString("en-US") + " of the " + n +
        " plotted rows: those the filters match. The axes and the frontier line are those of all " + n + ".";
  }
  [fCohort, fFamily, fLanguage, fVerified].forEach(function (c) { c.addEventListener("change", applyFilters); });
  fText.addEventListener("input", applyFilters);

  // Report card of one entry: a modal dialog built from the JSON with textContent. It has its
  // own URL fragment (#card=<key>, plus &cohort=<cohort key> when the key is in two cohorts):
  // opening pushes it, back closes, loading or navigating to it opens.
  var card = document.getElementById("card");
  var cardBody = document.getElementById("card-body");
  var cardTitle = document.getElementById("card-title");
  var cardLink = document.getElementById("card-link");
  var cardRow = document.getElementById("card-row");
  var cardHead = card.querySelector(".card-head");
  var toFailed = document.getElementById("card-to-failed");
  var failedHead = null;
  var current = null;
  // An entry's failed tasks as the page data carries them: indices into the shared table of
  // strings (page.py page_data), the transcript link cut at its last "/" (folder -1: none,
  // -2: the previous failed task's folder).
  var strings = data.strings;
  function failedTasks(rows) {
    var folder = null;
    return rows.map(function (f) {
      if (f[5] !== -2) folder = f[5] < 0 ? null : strings[f[5]];
      return {
        task_id: strings[f[0]], family: strings[f[1]], value: f[2],
        lines: f[3].map(function (i) { return strings[i]; }), private: f[4] === 1,
        transcript: folder === null ? null : folder + "/" + strings[f[6]]
      };
    });
  }
  function tasks(n) { return n + (n === 1 ? " task" : " tasks"); }
  // A figure with what it rests on beside it ("0.500 [0.500, 0.500]; every family is
  // constant: ..."), as bench show says it.
  function noted(node, note) {
    if (!note) return node;
    var out = el("span");
    out.appendChild(node);
    out.appendChild(document.createTextNode(node.nodeType === Node.TEXT_NODE ? " (" + note + ")" : "; " + note));
    return out;
  }
  var EVERY_FAMILY = "every family is constant";
  function point(e, why) { return e && e.lo === e.hi ? "the interval is a single point: " + why : null; }
  function oneRepeat(value, cohort, what) {
    return value === null && cohort.repeats === 1 ? "one repeat: " + what + " needs two or more repeats" : null;
  }
  // Which tasks the row's numbers are over: the split (or subset) it ran, and, when some of
  // them could not be scored, how many were; those are left out of the mean and named.
  function scope(r, cohort) {
    var ran = r.subset ? r.subset + " (not the whole split)" : "all of the " + (cohort.split ? cohort.split + " split" : "task set");
    var missing = r.not_scored.length;
    if (!missing) return ran;
    return r.tasks + " of " + tasks(r.tasks + missing) + " scored (" + ran + "; " + missing +
      " not scored, left out of the mean and named below)";
  }
  // A row's rank on one family or category (the "rank by" view's), after its figure.
  function standing(item, ci, key, kind, name) {
    var views = rankViews[ci], row = rowOf.get(ci + "\u0000" + key);
    if (!views || !row) return;
    for (var k = 0; k < views.length; k++) {
      if (views[k].kind !== kind || views[k].name !== name) continue;
      var rank = rowRank(row.tr, k);
      if (!rank) return;
      var lo = rank[0], hi = rank[1];
      item.appendChild(el("span", " rank " + lo + (hi === lo ? "" : " (range " + lo + "–" + hi + ")") + " on this " + kind + " alone", "sub standing"));
      return;
    }
  }
  function dl(pairs) {
    var list = el("dl");
    pairs.forEach(function (p) {
      list.appendChild(el("dt", p[0]));
      if (p[1] instanceof Node) list.appendChild(el("dd")).appendChild(p[1]);
      else list.appendChild(el("dd", p[1]));
    });
    return list;
  }
  function cardHash(ci, key) {
    var hash = "#card=" + encodeURIComponent(key);
    if (keyCount.get(key) > 1) hash += "&cohort=" + encodeURIComponent(cohorts[ci].cohort_key);
    return hash;
  }
  function hashTarget() {
    var m = /^#card=([^&]*)(?:&cohort=(.*))?$/.exec(location.hash);
    if (!m) return null;
    var key, cohortKey = null;
    try {
      key = decodeURIComponent(m[1]);
      if (m[2] !== undefined) cohortKey = decodeURIComponent(m[2]);
    } catch (err) { return null; }
    for (var ci = 0; ci < cohorts.length; ci++) {
      if ((cohortKey === null || cohorts[ci].cohort_key === cohortKey) && entryOf[ci].has(key)) {
        return { ci: ci, key: key };
      }
    }
    return null;
  }
  function fillCard(cohortIndex, key) {
    var cohort = cohorts[cohortIndex];
    var r = entryOf[cohortIndex].get(key);
    if (!r) return false;
    cardTitle.textContent = r.display_name + (r.config_label ? " (" + r.config_label + ")" : "");
    cardLink.href = cardHash(cohortIndex, key);
    cardRow.href = rowHash(cohortIndex, key);
    var parts = document.createDocumentFragment();
    parts.appendChild(dl([
      ["entrant", r.entrant], ["run", r.run_id + " (" + r.source + ": " + r.source_path + ")"],
      ["date", r.created], ["verified", (r.verified ? "yes" : "no") + " — " + r.verified_note],
      ["rank", r.ranked && cohort.entries.filter(function (e) { return e.ranked; }).length === 1 ? "alone: the only ranked entry of its cohort, compared with no one" : r.ranked ? r.rank + " (range " + r.rank + "–" + r.rank_hi + ")" : r.reference ? "not ranked: reference row (no-model baseline " + r.reference + ")" : "unranked (" + r.status + ")"],
      ["tasks", scope(r, cohort)],
      // the engine the run declared: in its fingerprint, not its cohort key, so it tells one
      // entrant's rows of a cohort apart; only runs of an inference server have one
      ["engine", r.engine],
      ["headline", noted(est(r.headline), r.headline_note)], ["pooled mean", fmt(r.pooled, 3)],
      ["pass^k", noted(est(r.pass_hat_k), oneRepeat(r.pass_hat_k, cohort, "pass^k") || point(r.pass_hat_k, EVERY_FAMILY))],
      ["flakiness", noted(est(r.flakiness), oneRepeat(r.flakiness, cohort, "flakiness") || point(r.flakiness, EVERY_FAMILY))],
      ["error rate", r.error_rate === null ? "— (no attempt counted: scored, errored or over budget)" : fmt(r.error_rate * 100, 1) + " %"],
      ["harness faults", String(r.harness_faults) + (r.harness_faults ? " (left out of the score; each reproduced from its recording by bench verify)" : "")],
      ["cost per run", r.cost_usd === null ? r.cost_note : "$" + fmt(r.cost_usd, 6) + " (run total " + r.cost_note + ")"],
      ["p95 latency", r.p95_latency_s === null ? "—" : fmt(r.p95_latency_s, 3) + " s" + (r.p95_note ? " (" + r.p95_note + ")" : "")],
      ["frontier membership", r.frontier_probability === null ? "—" : fmt(r.frontier_probability * 100, 0) + " %" + (r.dominated_95 ? ", dominated with 95 % confidence" : "")],
      ["judge-excluded families", r.judge_excluded.length ? r.judge_excluded.join(", ") : "none"],
      ["note", r.note === null ? "—" : r.note]
    ].filter(function (p) { return p[1] !== null; })));
    if (r.entrant_info) {
      var info = r.entrant_info;
      parts.appendChild(el("h3", "About the entrant"));
      parts.appendChild(dl([
        ["organisation", info.organisation], ["model", info.model],
        ["contact", info.contact], ["license", info.license]
      ]));
      if (info.links.length) {
        var links = el("ul", null, "links");
        info.links.forEach(function (u) { var li = el("li"); li.appendChild(safeLink(u, u)); links.appendChild(li); });
        parts.appendChild(links);
      }
      // The description was rendered from Markdown at build time (raw HTML off) into a
      // <template>; it is cloned, never parsed from a string here.
      var described = document.getElementById("desc-" + r.entrant);
      if (described) {
        var box = el("div", null, "description");
        box.appendChild(described.content.cloneNode(true));
        parts.appendChild(box);
      }
    }
    parts.appendChild(el("h3", "Family scores"));
    var fams = el("ul");
    var familyNotes = cohort.family_notes || {};
    r.families.forEach(function (f) {
      var item = fams.appendChild(el("li", f.family + " (" + tasks(f.n) + "): "));
      item.appendChild(noted(est(f.score), point(f.score, "every task of the family has the same value")));
      standing(item, cohortIndex, key, "family", f.family);
    });
    if (!r.families.length) fams.appendChild(el("li", "—"));
    parts.appendChild(fams);
    // a family of fewer than 10 tasks: what its interval is worth (the cohort's notes)
    r.families.forEach(function (f) {
      if (familyNotes[f.family]) parts.appendChild(el("p", familyNotes[f.family], "sub family-note"));
    });
    if (r.categories && r.categories.length) {
      parts.appendChild(el("h3", "Category scores (" + r.categories.length + ")"));
      var cats = el("ul", null, "categories");
      r.categories.forEach(function (c) {
        var item = cats.appendChild(el("li", c.category + " (" + tasks(c.tasks) + "): "));
        if (c.score) item.appendChild(est(c.score));
        else item.appendChild(document.createTextNode(c.tasks ? "not scored" : "not run"));
        if (c.score && c.scored < c.tasks) item.appendChild(document.createTextNode(" (" + (c.tasks - c.scored) + " not scored)"));
        standing(item, cohortIndex, key, "category", c.category);
      });
      parts.appendChild(cats);
    }
    parts.appendChild(el("h3", "Language scores (plain means, not stratified)"));
    var langs = el("ul", null, "languages");
    r.languages.forEach(function (s) { langs.appendChild(el("li", s.language + " (" + tasks(s.n) + "): " + fmt(s.mean, 3))); });
    if (!r.languages.length) langs.appendChild(el("li", "—"));
    parts.appendChild(langs);
    parts.appendChild(el("h3", "Axis scores"));
    var axes = el("ul");
    Object.keys(r.axes).sort().forEach(function (a) { axes.appendChild(el("li", a + ": " + fmt(r.axes[a], 3))); });
    if (!Object.keys(r.axes).length) axes.appendChild(el("li", "—"));
    parts.appendChild(axes);
    if (r.safety.length) {
      parts.appendChild(el("h3", "Safety violations", "flag"));
      var unsafe = el("ul");
      r.safety.forEach(function (s) { unsafe.appendChild(el("li", s)); });
      parts.appendChild(unsafe);
    }
    if (r.not_scored.length) {
      var unscoredHead = el("h3", "Not scored (" + r.not_scored.length.toLocaleString("en-US") + "): left out of the mean", "not-scored-head");
      unscoredHead.id = "card-not-scored";
      parts.appendChild(unscoredHead);
      var unscored = el("ul", null, "not-scored");
      r.not_scored.forEach(function (n) {
        var item = el("li");
        item.appendChild(n.private ? el("code", n.task_id) : taskLink(n.task_id, cohortIndex));
        item.appendChild(document.createTextNode(" " + n.family + " "));
        if (n.private) item.appendChild(el("span", "(private split: id only)", "sub"));
        else if (n.reason !== null) item.appendChild(el("span", n.reason, "sub sentence"));
        unscored.appendChild(item);
      });
      parts.appendChild(unscored);
    }
    var failedList = failedTasks(r.failed);
    failedHead = el("h3", "Failed tasks (" + failedList.length + ")", "failed-head");
    failedHead.id = "card-failed";
    failedHead.tabIndex = -1;
    parts.appendChild(failedHead);
    toFailed.textContent = "failed tasks (" + failedList.length.toLocaleString("en-US") + ") ↓";
    toFailed.hidden = failedList.length === 0;
    var failed = el("ul", null, "failed");
    failedList.forEach(function (f) {
      var item = el("li");
      // a private task: its id and score, no link (the task search still finds its view)
      item.appendChild(f.private ? el("code", f.task_id) : taskLink(f.task_id, cohortIndex));
      item.appendChild(document.createTextNode(" " + f.family + ", score " + fmt(f.value, 2) + " "));
      if (f.private) item.appendChild(el("span", "(private split: id and score only)", "sub"));
      f.lines.forEach(function (line) { item.appendChild(el("span", line, "sub sentence")); });
      // the viewer beside the page (transcript.html), then the file on GitHub (--repo-url)
      if (!f.private && typeof r.transcripts === "string" && /^[0-9a-f]{24}$/.test(r.transcripts)) {
        var view = el("a", "transcript", "transcript");
        view.href = "transcript.html" + fromPage() + "#" + r.transcripts + "/" + encodeURIComponent(f.task_id);
        item.appendChild(view);
      }
      if (f.transcript && !f.private) {
        item.appendChild(document.createTextNode(" "));
        item.appendChild(safeLink(f.transcript, "source"));
      }
      failed.appendChild(item);
    });
    parts.appendChild(failed);
    parts.appendChild(el("h3", "Config fingerprint " + r.fingerprint));
    parts.appendChild(el("pre", JSON.stringify(r.config, null, 2)));
    cardBody.replaceChildren(parts);
    return true;
  }
  function openCard(ci, key, push) {
    if (card.open && current && current.ci === ci && current.key === key) return;
    if (!fillCard(ci, key)) return;
    var row = rowOf.get(ci + "\u0000" + key);
    // focus goes back where it was when the card opened: the entrant's link or the row
    var from = row && row.tr.contains(document.activeElement) ? document.activeElement : null;
    current = { ci: ci, key: key, row: row, from: from };
    if (push) {
      try { history.pushState({ boardCard: true }, "", cardHash(ci, key)); } catch (err) { /* file: quirks */ }
    }
    if (!card.open) card.showModal();
    card.scrollTop = 0;
    cardTitle.focus();
  }
  // Closing: the fragment goes (back, when opening pushed it; else replaced), unless the
  // history itself closed the card; focus returns to the entry's row.
  function afterClose(was, fromHistory) {
    if (!fromHistory && hashTarget()) {
      if (history.state && history.state.boardCard) history.back();
      else history.replaceState(null, "", location.href.split("#")[0]);
    }
    if (was && was.row && !was.row.tr.hidden) (was.from && was.row.tr.contains(was.from) ? was.from : was.row.tr).focus();
  }
  function closeCard(fromHistory) {
    if (!card.open) return;
    var was = current;
    current = null;
    card.close();
    afterClose(was, fromHistory);
  }
  // Escape (or any other way the browser closes the dialog) ends here; closeCard already
  // cleared current, so its own close event does nothing.
  card.addEventListener("close", function () {
    // A close event is dispatched after the close: when the card has been opened again in
    // between (its fragment came back at once), that event is stale and closes nothing.
    if (!current || card.open) return;
    var was = current;
    current = null;
    afterClose(was, false);
  });
  document.getElementById("card-close").addEventListener("click", function () { closeCard(false); });
  card.addEventListener("click", function (event) {
    if (event.target === card) closeCard(false);  // the backdrop
  });
  cardLink.addEventListener("click", function (event) { event.preventDefault(); });
  // A card's failed tasks come after a screenful of numbers: the head's button brings their
  // heading up to just below the head (which stays put) and focuses it. A button, not a
  // fragment link: the page's fragment names the card.
  toFailed.addEventListener("click", function () {
    if (!failedHead) return;
    card.scrollTop += failedHead.getBoundingClientRect().top - cardHead.getBoundingClientRect().bottom - 8;
    failedHead.focus({ preventScroll: true });
  });
  function syncWithHash() {
    var target = hashTarget();
    if (target) { hideTask(); openCard(target.ci, target.key, false); return; }
    closeCard(true);
    goToPlace();
  }
  window.addEventListener("popstate", syncWithHash);
  window.addEventListener("hashchange", syncWithHash);

  // A row opens its card: a click anywhere in it (not on a link, a button or a selection),
  // Enter / Space on the focused row, or its entrant's name, a link to the card's URL (the
  // row's one stop for Tab; a click with a modifier opens that URL in a new tab).
  function rowFromEvent(event) {
    var tr = event.target.closest("tr.entry");
    if (!tr || event.target.closest("a, button, input, select, textarea, label, summary")) return null;
    return tr;
  }
  function openRow(tr) {
    openCard(Number(tr.getAttribute("data-cohort-index")), tr.getAttribute("data-key"), true);
  }
  tables.forEach(function (t) {
    var body = t.table.tBodies[0];
    body.addEventListener("click", function (event) {
      var link = event.target.closest("a.card-open");
      if (link && event.button === 0 && !(event.ctrlKey || event.metaKey || event.shiftKey || event.altKey)) {
        event.preventDefault();
        openRow(link.closest("tr.entry"));
        return;
      }
      var tr = rowFromEvent(event);
      var selection = window.getSelection();
      if (!tr || (selection && !selection.isCollapsed && tr.contains(selection.anchorNode))) return;
      openRow(tr);
    });
    body.addEventListener("keydown", function (event) {
      if ((event.key !== "Enter" && event.key !== " ") || event.target.tagName !== "TR") return;
      event.preventDefault();
      openRow(event.target);
    });
  });

  // Charts: drawn as SVG at build time; a labelled point shows its <title> on focus too.
  var tip = document.getElementById("chart-tip");
  function showTip(event) {
    var point = event.target.closest && event.target.closest("g.point");
    if (!point) return;
    var box = point.getBoundingClientRect();
    tip.textContent = point.querySelector("title").textContent;
    tip.style.left = "0px";  // laid out at its natural width first, then placed
    tip.hidden = false;
    // right of the point, or left of it when it would not fit before the viewport's edge
    // (a narrow screen, a point near the right): never squeezed against the edge
    var width = tip.offsetWidth, view = document.documentElement.clientWidth;
    var left = box.right + 8;
    if (left + width > view - 4) left = Math.max(4, Math.min(box.left - 8 - width, view - 4 - width));
    tip.style.left = Math.round(window.scrollX + left) + "px";
    tip.style.top = Math.round(window.scrollY + box.top - 4) + "px";
  }
  document.querySelectorAll("figure.chart svg").forEach(function (svg) {
    svg.addEventListener("focusin", showTip);
    svg.addEventListener("focusout", function () { tip.hidden = true; });
  });

  // Links that survive a rebuild: they name a row by its key (entrant/fingerprint) and a
  // cohort by its cohort key, never by a position. #row=<key>&cohort=<cohort key> brings the
  // row into view, focused and marked (clearing a filter or "show all" that hid it);
  // #cohort=<cohort key> shows that cohort alone, as choosing it in the filter does (which
  // writes that fragment); #compare=<key>&with=<key>&cohort=<cohort key> opens a comparison.
  function decoded(text) {
    try { return decodeURIComponent(text); } catch (err) { return null; }
  }
  function cohortIndex(cohortKey) {
    for (var ci = 0; ci < cohorts.length; ci++) if (cohorts[ci].cohort_key === cohortKey) return ci;
    return -1;
  }
  function rowHash(ci, key) {
    return "#row=" + encodeURIComponent(key) + "&cohort=" + encodeURIComponent(cohorts[ci].cohort_key);
  }
  function compareHash(ci, a, b) {
    return "#compare=" + encodeURIComponent(a) + "&with=" + encodeURIComponent(b) +
      "&cohort=" + encodeURIComponent(cohorts[ci].cohort_key);
  }
  function unhide(ci) {
    if (fCohort.value !== "" && fCohort.value !== cohorts[ci].cohort_key) { fCohort.value = ""; applyFilters(); }
  }
  function focusHeading(node) {
    node.tabIndex = -1;
    node.scrollIntoView({ block: "start" });
    node.focus({ preventScroll: true });
  }
  function showRow(ci, key) {
    var r = rowOf.get(ci + "\u0000" + key);
    if (!r) return;
    unhide(ci);
    if (!r.matches) {
      fText.value = ""; fVerified.checked = false; fLanguage.value = "";
      applyFilters();
    }
    var t = tables[ci];
    if (r.hidden) { t.expanded = true; showRows(t); }
    document.querySelectorAll("tr.entry.linked").forEach(function (tr) { tr.classList.remove("linked"); });
    r.tr.classList.add("linked");
    r.tr.scrollIntoView({ block: "center" });
    r.tr.focus({ preventScroll: true });
  }
  function goToPlace() {
    var h = location.hash, m, ci;
    if ((m = /^#task=([^&]*)(?:&cohort=(.*))?$/.exec(h))) {
      var id = decoded(m[1]);
      ci = m[2] === undefined ? -1 : cohortIndex(decoded(m[2]));
      if (id) showTask(id, ci);
      return;
    }
    hideTask();
    if ((m = /^#rankby=([^&]*)(?:&cohort=(.*))?$/.exec(h))) {
      var wanted = decoded(m[1]), only = m[2] === undefined ? null : decoded(m[2]), first = null;
      rankChoosers.forEach(function (chooser, i) {
        if (!chooser || (only !== null && cohorts[i].cohort_key !== only)) return;
        if (chooser.pick(wanted) && first === null) first = chooser;
      });
      if (first) first.box.scrollIntoView({ block: "start" });
      return;
    }
    if ((m = /^#row=([^&]*)&cohort=(.*)$/.exec(h))) {
      ci = cohortIndex(decoded(m[2]));
      if (ci >= 0) showRow(ci, decoded(m[1]));
    } else if ((m = /^#cohort=(.*)$/.exec(h))) {
      ci = cohortIndex(decoded(m[1]));
      if (ci < 0) return;
      fCohort.value = cohorts[ci].cohort_key;
      applyFilters();
      focusHeading(tables[ci].section.querySelector("h2"));
    } else if ((m = /^#compare=([^&]*)&with=([^&]*)&cohort=(.*)$/.exec(h))) {
      ci = cohortIndex(decoded(m[3]));
      var c = ci >= 0 ? compares[ci] : null;
      if (!c) return;
      var a = decoded(m[1]), b = decoded(m[2]);
      if (!c.index.has(a) || !c.index.has(b)) return;
      unhide(ci);
      c.a.value = a; c.b.value = b;
      showComparison(c);
      focusHeading(c.section.querySelector("h3"));
    }
  }
  fCohort.addEventListener("change", function () {
    var wanted = fCohort.value ? "#cohort=" + encodeURIComponent(fCohort.value) : "";
    if (location.hash === wanted || !(wanted || /^#cohort=/.test(location.hash))) return;
    try { history.replaceState(null, "", location.href.split("#")[0] + wanted); } catch (err) { /* file: quirks */ }
  });

  // "Rank by": per cohort, its ranked rows' ranks on one family or suite category, computed at
  // build time (standings.py): the options name the families or categories, and each ranked
  // row carries its own ranks on them (data-ranks, "lo-hi" per option). Choosing one re-sorts
  // the table by those ranks (then the column's figure as shown, then the board's order) and
  // the Rank column shows them; choosing the headline puts back the cells the build wrote.
  function rankCell(view, lo, hi, tied) {
    var shown = el("span");
    shown.setAttribute("aria-hidden", "true");
    shown.appendChild(document.createTextNode(String(lo)));
    shown.appendChild(el("span", lo + "–" + hi, "range"));
    if (tied) shown.appendChild(el("span", "tied", "tie"));
    var words = "rank " + lo + " on " + view.kind + " " + view.name +
      (tied ? ", tied with " + tied + " other row" + (tied !== 1 ? "s" : "") : "") + "; " +
      (hi === lo ? "the data allow no other rank" : "the data allow ranks " + lo + " to " + hi);
    return [shown, el("span", words, "sr-only")];
  }
  var rankChoosers = [];
  function rankByHash(ci, view) {
    return "#rankby=" + encodeURIComponent(view.kind + ":" + view.name) +
      "&cohort=" + encodeURIComponent(cohorts[ci].cohort_key);
  }
  // per cohort: its "rank by" options ({kind, name, tasks, test}), or null without the view
  var rankViews = tables.map(function (t) {
    var box = t.section.querySelector("div.rank-by");
    if (!box) return null;
    return Array.prototype.slice.call(box.querySelectorAll("option[data-kind]")).map(function (o) {
      return { kind: o.getAttribute("data-kind"), name: o.getAttribute("data-name"),
        tasks: Number(o.getAttribute("data-tasks")), test: o.getAttribute("data-test") };
    });
  });
  // a row's [lo, hi] on its cohort's k-th option, or null (not ranked there)
  function rowRank(tr, k) {
    var all = tr.getAttribute("data-ranks");
    var part = all ? all.split(" ")[k] : undefined;
    if (!part) return null;
    var ends = part.split("-");
    return [Number(ends[0]), Number(ends[1])];
  }
  tables.forEach(function (t, ci) {
    var views = rankViews[ci];
    if (!views || !views.length) return;
    var box = t.section.querySelector("div.rank-by");
    var select = box.querySelector("select"), note = box.querySelector(".rank-by-note");
    var link = box.querySelector(".rank-by-link"), printed = t.section.querySelector(".print-ranks");
    var headlineRanks = printed ? printed.textContent : "";
    t.rows.forEach(function (r) {
      r.cell = r.tr.cells[0];
      r.built = Array.prototype.slice.call(r.cell.childNodes);
      r.boardOrder = r.order;
      r.boardRank = r.tr.getAttribute("data-rank");
    });
    function shownValue(r, view) {
      var cells = r.tr.cells, cell = null;
      for (var i = 0; i < cells.length; i++) if (cells[i].getAttribute("data-" + view.kind) === view.name) { cell = cells[i]; break; }
      var raw = cell ? cell.getAttribute("data-value") : "";
      return raw === null || raw === "" ? null : Number(fmt(Number(raw), view.kind === "family" ? 2 : 3));
    }
    function choose(event) {
      var k = select.selectedIndex - 1, view = k >= 0 ? views[k] : null;
      // the choice has an address (#rankby=<kind>:<name>&cohort=<key>), written when the
      // reader chooses, never over a card's, a row's, a comparison's or a task's
      var address = view ? rankByHash(ci, view) : "";
      if (event && /^(#rankby=.*|#cohort=.*|#?)$/.test(location.hash) && location.hash !== address) {
        try { history.replaceState(null, "", location.href.split("#")[0] + address); } catch (err) { /* file: quirks */ }
      }
      if (link) { link.hidden = !view; link.href = address || "#"; }
      if (printed) {
        printed.textContent = view
          ? "Ranks on this printout: by " + view.kind + " " + view.name + " alone, on its " + tasks(view.tasks) +
            " every ranked row scored; not the headline's."
          : headlineRanks;
      }
      t.table.querySelectorAll(".ranked-by").forEach(function (n) { n.classList.remove("ranked-by"); });
      if (view) {
        t.table.querySelectorAll("[data-" + view.kind + "]").forEach(function (n) {
          if (n.getAttribute("data-" + view.kind) === view.name) n.classList.add("ranked-by");
        });
      }
      var keyed = t.rows.map(function (r) {
        var rank = view ? rowRank(r.tr, k) : null;
        return { r: r, rank: rank, lo: rank ? rank[0] : null, v: rank ? shownValue(r, view) : null };
      });
      var holders = new Map();
      keyed.forEach(function (x) { if (x.lo !== null) holders.set(x.lo, (holders.get(x.lo) || 0) + 1); });
      keyed.forEach(function (x) {
        if (x.rank === null) {
          x.r.cell.replaceChildren.apply(x.r.cell, x.r.built);
          x.r.tr.setAttribute("data-rank", x.r.boardRank);
        } else {
          x.r.cell.replaceChildren.apply(x.r.cell, rankCell(view, x.lo, x.rank[1], holders.get(x.lo) - 1));
          x.r.tr.setAttribute("data-rank", String(x.lo));
        }
      });
      keyed.sort(function (a, b) {
        if ((a.lo === null) !== (b.lo === null)) return a.lo === null ? 1 : -1;
        if (a.lo !== null && a.lo !== b.lo) return a.lo - b.lo;
        if ((a.v === null) !== (b.v === null)) return a.v === null ? 1 : -1;
        if (a.v !== null && a.v !== b.v) return b.v - a.v;
        return a.r.boardOrder - b.r.boardOrder;
      });
      t.rows = keyed.map(function (x, i) { x.r.order = i; return x.r; });
      t.table.querySelectorAll("th button").forEach(function (b) { b.removeAttribute("data-sorted"); });
      t.table.querySelectorAll("th").forEach(function (th) { th.removeAttribute("aria-sort"); });
      var fragment = document.createDocumentFragment();
      t.rows.forEach(function (r) { fragment.appendChild(r.tr); });
      t.table.tBodies[0].appendChild(fragment);
      showRows(t);
      // the Rank header names what it ranks by; the chosen column is brought into the table's
      // view beside the rank and entrant columns that stay at its left (a phone's scroll with
      // the numbers: there the ranks stay in view, and the column is a swipe away)
      var head = t.table.tHead.rows[0], label = head.cells[0].querySelector(".ranked-on");
      if (label) label.remove();
      if (!view) { note.textContent = ""; return; }
      // the kind, not the name: a category's name does not fit the narrow column (the
      // column itself is marked, and the note names it)
      var on = head.cells[0].appendChild(el("span", "by " + view.kind, "sub ranked-on"));
      on.title = view.kind + " " + view.name;
      var th = head.querySelector("th.ranked-by"), wrap = t.table.parentNode;
      var stuck = head.cells[0].offsetWidth + head.cells[1].offsetWidth;
      if (th && window.getComputedStyle(head.cells[0]).left !== "auto" &&
          (th.offsetLeft < wrap.scrollLeft + stuck || th.offsetLeft + th.offsetWidth > wrap.scrollLeft + wrap.clientWidth)) {
        wrap.scrollLeft = Math.max(0, th.offsetLeft - stuck);
      }
      var B = data.board.resamples.toLocaleString("en-US");
      var how = view.test === "sign-flip"
        ? "below 30 tasks the exact sign-flip test of the task differences decides"
        : view.test === "none"
          ? "too few resamples (" + B + ") to tell rows apart: every row shares rank 1"
          : "a row is ahead of another when it is ahead in more than " + fmt(100 - (100 - data.board.level * 100) / 2, 1) +
            " % of the cohort's " + B + " resamples of these tasks";
      note.textContent = "Ranked by " + view.kind + " " + view.name + ": on its " + tasks(view.tasks) +
        " every ranked row scored; " + how + ". Reference and unranked rows follow; every other column is unchanged (choose the headline for its ranks).";
    }
    select.addEventListener("change", choose);
    if (link) link.addEventListener("click", function (event) { event.preventDefault(); });
    rankChoosers[ci] = {
      box: box,
      // choose the option a link names: "family:tool-trajectory", or the name alone
      pick: function (wanted) {
        for (var k = 0; k < views.length; k++) {
          if (wanted === views[k].kind + ":" + views[k].name || wanted === views[k].name) {
            if (select.selectedIndex !== k + 1) { select.selectedIndex = k + 1; choose(null); }
            return true;
          }
        }
        return false;
      }
    };
    box.hidden = false;
  });

  // "Is A better than B?": per cohort, two rows picked from its ranked rows and their paired
  // difference, interval and tie decision, all computed at build time (pairs.py) and carried
  // in their own JSON block; nothing is computed here but a sign.
  var pairsNode = document.getElementById("board-pairs");
  var pairData = pairsNode ? JSON.parse(pairsNode.textContent) : [];
  var compares = [];
  function rowName(e) { return e.display_name + (e.config_label ? " (" + e.config_label + ")" : ""); }
  function signed(x) { var t = fmt(x, 3); return x > 0 && t !== "0.000" ? "+" + t : t; }
  function bar(d, lo, hi) {
    // the interval against 0, on a scale symmetric about it (aria-hidden: the words say it)
    var svg = document.createElementNS(SVG, "svg"), m = Math.max(Math.abs(lo), Math.abs(hi), 0.05);
    svg.setAttribute("viewBox", "0 0 320 30");
    svg.setAttribute("class", "compare-bar");
    svg.setAttribute("aria-hidden", "true");
    function x(v) { return (160 + v / m * 145).toFixed(1); }
    function add(tag, attrs) {
      var node = svg.appendChild(document.createElementNS(SVG, tag));
      Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
      return node;
    }
    add("line", { x1: 15, x2: 305, y1: 15, y2: 15, "class": "axis" });
    add("line", { x1: 160, x2: 160, y1: 3, y2: 27, "class": "zero" });
    add("line", { x1: x(lo), x2: x(hi), y1: 15, y2: 15, "class": "span" });
    add("circle", { cx: x(d), cy: 15, r: 4.5, "class": "dot" });
    add("text", { x: 160, y: 29, "text-anchor": "middle", "class": "tick" }).textContent = "0";
    return svg;
  }
  function showComparison(c) {
    var n = c.cp.keys.length, i = c.index.get(c.a.value), j = c.index.get(c.b.value);
    var A = entryOf[c.ci].get(c.a.value), B = entryOf[c.ci].get(c.b.value);
    c.link.href = compareHash(c.ci, c.a.value, c.b.value);
    var out = document.createDocumentFragment();
    var p = i === j ? null : c.lookup.get(Math.min(i, j) * n + Math.max(i, j));
    if (i === j) {
      out.appendChild(el("p", "Pick two different rows.", "compare-verdict"));
    } else if (!p) {
      out.appendChild(el("p", "This pair is not on the page: it carries every pair among the first " + topPairs +
        " ranked rows, and each later row against its neighbours and the first row. bench compare " +
        A.run_id + " " + B.run_id + " compares any two runs, on the tasks both scored.", "compare-verdict"));
    } else {
      var d = p[2], lo = p[3], hi = p[4], v = p[5];
      if (i > j) { d = -d; var t = lo; lo = -hi; hi = -t; v = -v; }
      var verdict = el("p", null, "compare-verdict " + (v === 0 ? "tie" : "ahead"));
      var strong = verdict.appendChild(el("strong", v === 0 ? "Tie" : rowName(v > 0 ? A : B) + " is ahead"));
      strong.className = "verdict";
      verdict.appendChild(document.createTextNode(v === 0
        ? ": the data cannot tell " + rowName(A) + " and " + rowName(B) + " apart."
        : " of " + rowName(v > 0 ? B : A) + "."));
      // below 30 shared tasks the sign-flip test decides: when the interval shown says
      // otherwise (a tie whose interval excludes 0, or a lead whose interval holds it), the
      // verdict says so where it is read first, not only in the small print under the bar
      if (c.cp.test === "sign-flip" && (v === 0) === (lo > 0 || hi < 0)) {
        verdict.appendChild(document.createTextNode(" With " + tasks(c.cp.tasks) +
          " shared, the exact sign-flip test decides, not the interval below, which " +
          (v === 0 ? "excludes" : "holds") + " 0."));
      }
      out.appendChild(verdict);
      var diff = el("p", null, "compare-diff");
      diff.appendChild(el("span", rowName(A) + " − " + rowName(B) + ": "));
      diff.appendChild(el("strong", signed(d)));
      diff.appendChild(el("span", " [" + signed(lo) + ", " + signed(hi) + "]")).setAttribute("aria-hidden", "true");
      diff.appendChild(el("span", ", " + pct + " % interval " + fmt(lo, 3) + " to " + fmt(hi, 3), "sr-only"));
      diff.appendChild(document.createTextNode(" in the headline, over the " + tasks(c.cp.tasks) + " every ranked row scored."));
      out.appendChild(diff);
      out.appendChild(bar(d, lo, hi));
      var level = fmt(100 - (100 - data.board.level * 100) / 2, 1);
      var how = c.cp.test === "sign-flip"
        ? "Decided as the ranks decide it below 30 shared tasks: by the exact sign-flip test of the family-weighted task differences (p < " + fmt(1 - data.board.level, 2) + " for a row to be ahead); the interval is shown, not used."
        : c.cp.test === "none"
          ? "Not decided: " + c.cp.resamples.toLocaleString("en-US") + " resample(s) are too few to tell rows apart."
          : v === 0
            ? "Neither row is ahead in more than " + level + " % of the " + c.cp.resamples.toLocaleString("en-US") + " shared resamples."
            : rowName(v > 0 ? A : B) + " is ahead in more than " + level + " % of the " + c.cp.resamples.toLocaleString("en-US") + " shared resamples.";
      out.appendChild(el("p", how, "sub compare-how"));
    }
    c.result.replaceChildren(out);
  }
  document.querySelectorAll("section.compare").forEach(function (section) {
    var ci = Number(section.getAttribute("data-cohort-index")), cp = pairData[ci];
    if (!cp || !cp.keys.every(function (k) { return entryOf[ci].has(k); })) return;
    var c = {
      ci: ci, cp: cp, section: section, index: new Map(), lookup: new Map(),
      a: section.querySelector(".compare-a"), b: section.querySelector(".compare-b"),
      link: section.querySelector(".compare-link"), result: section.querySelector(".compare-result")
    };
    cp.keys.forEach(function (k, i) {
      c.index.set(k, i);
      var e = entryOf[ci].get(k), label = (e.rank !== null ? e.rank + " · " : "") + rowName(e);
      [c.a, c.b].forEach(function (s) { var o = s.appendChild(el("option", label)); o.value = k; });
    });
    cp.pairs.forEach(function (p) { c.lookup.set(p[0] * cp.keys.length + p[1], p); });
    c.a.value = cp.keys[0];
    c.b.value = cp.keys[1];
    [c.a, c.b].forEach(function (s) { s.addEventListener("change", function () { showComparison(c); }); });
    section.querySelector(".compare-swap").addEventListener("click", function () {
      var a = c.a.value; c.a.value = c.b.value; c.b.value = a; showComparison(c);
    });
    showComparison(c);
    section.querySelector(".compare-form").hidden = false;
    compares[ci] = c;
  });

  // The task view, "which entries failed this task?": one task (from a failed task's id on a
  // report card, the task search or its address, #task=<id>[&cohort=<cohort key>]), and in
  // each cohort that has it every row's verdict, in the table's order, with a link to the
  // row's transcript. The verdicts, the family and the prompt in brief were computed at build
  // time (taskview.py) and carried in the view's data-tasks; nothing is computed here.
  var taskView = document.getElementById("task-view");
  var taskData = taskView ? JSON.parse(taskView.getAttribute("data-tasks")) : [];
  var taskIndex = cohorts.map(function (c, ci) {
    var v = taskData[ci], m = new Map();
    // a cohort whose verdicts are not one per row is shown by no task view
    if (v && v.verdicts.length === c.entries.length) v.tasks.forEach(function (t, i) { m.set(t[0], i); });
    return m;
  });
  var VERDICT = { p: "passed", f: "failed", e: "errored", n: "not scored", "-": "not run" };
  function taskHash(id, ci) {
    return "#task=" + encodeURIComponent(id) + (ci >= 0 ? "&cohort=" + encodeURIComponent(cohorts[ci].cohort_key) : "");
  }
  function taskLink(id, ci) {
    var code = el("code", id);
    if (!taskIndex[ci] || !taskIndex[ci].has(id)) return code;
    var a = el("a", null, "task-link");
    a.href = taskHash(id, ci);
    a.title = "every row of the cohort on this task";
    a.appendChild(code);
    return a;
  }
  function rowVerdicts(v, i, c) {
    var counts = { p: 0, f: 0, e: 0, n: 0, "-": 0 };
    v.verdicts.forEach(function (s) { counts[s.charAt(i)] += 1; });
    var parts = [(counts.f + counts.e) + " of " + c.entries.length + " row" + (c.entries.length !== 1 ? "s" : "") + " failed it" +
      (counts.e ? " (" + counts.e + " errored)" : "")];
    parts.push(counts.p + " passed");
    if (counts.n) parts.push(counts.n + " could not be scored");
    if (counts["-"]) parts.push(counts["-"] + " did not run it");
    return parts.join("; ") + ".";
  }
  function verdictRow(c, ci, k, letter, id, isPrivate, holders) {
    var r = c.entries[k], tr = el("tr", null, "verdict-" + (letter === "-" ? "none" : letter));
    tr.setAttribute("data-key", r.key);
    var rank = r.ranked ? String(r.rank) + (holders.get(r.rank) > 1 ? " tied" : "") : r.reference ? "ref" : "—";
    tr.appendChild(el("td", rank));
    var who = tr.appendChild(el("th"));
    who.scope = "row";
    var open = who.appendChild(el("a", rowName(r)));
    open.href = cardHash(ci, r.key);
    var cell = tr.appendChild(el("td"));
    cell.appendChild(el("strong", VERDICT[letter]));
    var f = null;
    if (letter === "f" || letter === "e") {
      f = failedTasks(r.failed).filter(function (x) { return x.task_id === id; })[0] || null;
      if (f && f.value !== null) cell.appendChild(document.createTextNode(", score " + fmt(f.value, 2)));
      if (f) f.lines.slice(0, 2).forEach(function (line) { cell.appendChild(el("span", line, "sub sentence")); });
    } else if (letter === "n") {
      var why = r.not_scored.filter(function (x) { return x.task_id === id; })[0];
      if (why && why.reason) cell.appendChild(el("span", why.reason, "sub sentence"));
    }
    var look = tr.appendChild(el("td"));
    // the viewer's file of a bundle holds every attempt; of a run directory, its failed tasks'
    var held = letter === "f" || letter === "e" || (letter !== "-" && r.source === "bundle");
    if (isPrivate) look.appendChild(el("span", "private split: none", "sub"));
    else if (held && typeof r.transcripts === "string" && /^[0-9a-f]{24}$/.test(r.transcripts)) {
      var view = look.appendChild(el("a", "transcript", "transcript"));
      view.href = "transcript.html" + fromPage() + "#" + r.transcripts + "/" + encodeURIComponent(id);
      view.setAttribute("aria-label", "transcript of " + rowName(r));
      if (f && f.transcript) { look.appendChild(document.createTextNode(" ")); look.appendChild(safeLink(f.transcript, "source")); }
    } else look.appendChild(document.createTextNode("—"));
    return tr;
  }
  function showTask(id, only) {
    if (!taskView) return;
    var title = document.getElementById("task-view-title"), body = document.getElementById("task-view-body");
    var found = [];
    taskIndex.forEach(function (m, ci) { if (m.has(id) && (only < 0 || only === ci)) found.push(ci); });
    title.textContent = "Task " + id;
    document.getElementById("task-view-link").href = taskHash(id, only);
    var out = document.createDocumentFragment();
    if (!found.length) {
      title.textContent = "No task " + id;
      var like = [], lower = id.toLowerCase();
      taskIndex.forEach(function (m) { m.forEach(function (i, t) { if (t.toLowerCase().indexOf(lower) !== -1 && like.indexOf(t) === -1) like.push(t); }); });
      out.appendChild(el("p", like.length
        ? "No task of this page has that id. Tasks whose id contains it" + (like.length > 20 ? " (the first 20 of " + like.length + ")" : "") + ":"
        : "No task of this page has that id, or contains it."));
      var list = out.appendChild(el("ul", null, "task-like"));
      like.sort().slice(0, 20).forEach(function (t) {
        var a = list.appendChild(el("li")).appendChild(el("a", null, "task-link"));
        a.href = taskHash(t, -1);
        a.appendChild(el("code", t));
      });
    }
    found.forEach(function (ci) {
      var v = taskData[ci], i = taskIndex[ci].get(id), t = v.tasks[i], c = cohorts[ci];
      var part = out.appendChild(el("section", null, "task-cohort"));
      part.appendChild(el("h3", "Cohort: " + c.title));
      var prompt = t[3] ? "private split: id and verdicts only" : t[2] !== null ? t[2]
        : v.prompts ? "—" : "not on this page: the build was not given this cohort's task set (bench board build --tasks)";
      part.appendChild(dl([["family", t[1] || "—"], ["prompt, in brief", prompt]]));
      part.appendChild(el("p", rowVerdicts(v, i, c), "task-counts"));
      var table = part.appendChild(el("table", null, "task-rows"));
      var head = table.appendChild(el("thead")).appendChild(el("tr"));
      ["Rank", "Entrant", "Verdict", "Transcript"].forEach(function (h) { head.appendChild(el("th", h)).scope = "col"; });
      var rows = table.appendChild(el("tbody")), holders = new Map();
      c.entries.forEach(function (r) { if (r.ranked) holders.set(r.rank, (holders.get(r.rank) || 0) + 1); });
      c.entries.forEach(function (r, k) { rows.appendChild(verdictRow(c, ci, k, v.verdicts[k].charAt(i), id, t[3] === 1, holders)); });
    });
    body.replaceChildren(out);
    taskView.hidden = false;
    focusHeading(title);
  }
  function hideTask() { if (taskView && !taskView.hidden) taskView.hidden = true; }
  if (taskView) {
    document.getElementById("task-view-link").addEventListener("click", function (event) { event.preventDefault(); });
    document.getElementById("task-view-close").addEventListener("click", function () {
      hideTask();
      if (/^#task=/.test(location.hash)) {
        try { history.replaceState(null, "", location.href.split("#")[0]); } catch (err) { /* file: quirks */ }
      }
      document.getElementById("task-search-text").focus();
    });
  }
  var taskSearch = document.getElementById("task-search");
  if (taskSearch) {
    var known = new Set(), ids = document.getElementById("task-ids");
    taskIndex.forEach(function (m) { m.forEach(function (i, t) { known.add(t); }); });
    Array.from(known).sort().slice(0, 5000).forEach(function (t) { ids.appendChild(el("option")).value = t; });
    taskSearch.addEventListener("submit", function (event) {
      event.preventDefault();
      var id = document.getElementById("task-search-text").value.trim();
      if (!id) return;
      var address = taskHash(id, -1);
      if (known.has(id) && location.hash !== address) location.hash = address;
      else showTask(id, -1);
    });
  }

  if (hashTarget()) syncWithHash();
  else goToPlace();
  document.documentElement.setAttribute("data-board-ready", String(Math.round(performance.now())));
});
})();
