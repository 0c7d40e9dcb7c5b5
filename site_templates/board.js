// The board's behaviour. Data comes from the JSON block via JSON.parse; contributor strings are
// written with textContent only (never innerHTML); links are https: only.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("board-data").textContent);
  var cohorts = data.board.cohorts;

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
  function est(e) { return e ? fmt(e.value, 3) + " [" + fmt(e.lo, 3) + ", " + fmt(e.hi, 3) + "]" : "—"; }
  function safeLink(url, text) {
    var parsed;
    try { parsed = new URL(url); } catch (err) { return el("span", text); }
    if (parsed.protocol !== "https:") return el("span", text);
    var a = el("a", text);
    a.href = parsed.href;
    a.rel = "noopener noreferrer nofollow";
    return a;
  }

  // Sorting: stable, the board's own order (rank, headline as shown, entrant, run id) breaks
  // ties, so tied entries stay together; the headline sorts as shown (3 places, data-headline),
  // never by floating-point noise; empty values always sort last.
  function sortValue(row, key) {
    var raw;
    if (key.indexOf("family:") === 0) {
      var cell = row.querySelector('td[data-family="' + CSS.escape(key.slice(7)) + '"]');
      raw = cell ? cell.getAttribute("data-value") : "";
    } else {
      raw = row.getAttribute("data-" + key);
    }
    if (raw === null || raw === "") return null;
    if (key === "name" || key === "date") return raw.toLowerCase();
    return Number(raw);
  }
  function sortTable(table, key, button) {
    var ascending = button.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th button").forEach(function (b) { b.removeAttribute("aria-sort"); });
    button.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var va = sortValue(a, key), vb = sortValue(b, key);
      if (va === null && vb !== null) return 1;
      if (vb === null && va !== null) return -1;
      if (va !== null && va !== vb) return (va < vb ? -1 : 1) * (ascending ? 1 : -1);
      return Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order"));
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.board th button[data-sort]").forEach(function (button) {
    button.addEventListener("click", function () {
      sortTable(button.closest("table"), button.getAttribute("data-sort"), button);
    });
  });

  // Filters: cohort, family (which family columns show), language (entries with tasks in it),
  // verified only, entrant text. An entry's languages come from the JSON, not the markup.
  var fCohort = document.getElementById("filter-cohort");
  var fFamily = document.getElementById("filter-family");
  var fLanguage = document.getElementById("filter-language");
  function hasLanguage(row, language) {
    var cohort = cohorts[Number(row.getAttribute("data-cohort-index"))];
    var key = row.getAttribute("data-key");
    var r = cohort ? cohort.entries.filter(function (e) { return e.key === key; })[0] : null;
    return !!r && r.languages.some(function (s) { return s.language === language; });
  }
  var fVerified = document.getElementById("filter-verified");
  var fText = document.getElementById("filter-text");
  function applyFilters() {
    var text = fText.value.trim().toLowerCase();
    document.querySelectorAll("section.cohort").forEach(function (section) {
      section.hidden = fCohort.value !== "" && section.getAttribute("data-cohort") !== fCohort.value;
      section.classList.toggle("hide-family", fFamily.value !== "");
      section.querySelectorAll("[data-family]").forEach(function (cell) {
        cell.classList.toggle("family-shown", cell.getAttribute("data-family") === fFamily.value);
      });
      section.querySelectorAll("tr.entry").forEach(function (row) {
        var name = (row.getAttribute("data-name") + " " + row.getAttribute("data-key")).toLowerCase();
        row.hidden = (fVerified.checked && row.getAttribute("data-verified") !== "true") ||
          (fLanguage.value !== "" && !hasLanguage(row, fLanguage.value)) ||
          (text !== "" && name.indexOf(text) === -1);
      });
    });
  }
  [fCohort, fFamily, fLanguage, fVerified].forEach(function (c) { c.addEventListener("change", applyFilters); });
  fText.addEventListener("input", applyFilters);

  // Report card of one entry, built from the JSON with textContent.
  var card = document.getElementById("card");
  var cardBody = document.getElementById("card-body");
  function dl(pairs) {
    var list = el("dl");
    pairs.forEach(function (p) { list.appendChild(el("dt", p[0])); list.appendChild(el("dd", p[1])); });
    return list;
  }
  function openCard(cohortIndex, key) {
    var cohort = cohorts[cohortIndex];
    var r = cohort.entries.filter(function (e) { return e.key === key; })[0];
    if (!r) return;
    document.getElementById("card-title").textContent =
      r.display_name + (r.config_label ? " (" + r.config_label + ")" : "");
    cardBody.replaceChildren();
    cardBody.appendChild(dl([
      ["entrant", r.entrant], ["run", r.run_id + " (" + r.source + ": " + r.source_path + ")"],
      ["date", r.created], ["verified", (r.verified ? "yes" : "no") + " — " + r.verified_note],
      ["rank", r.ranked ? r.rank + " (range " + r.rank + "–" + r.rank_hi + ")" : r.reference ? "not ranked: reference row (no-model baseline " + r.reference + ")" : "unranked (" + r.status + ")"],
      ["tasks", r.subset ? r.subset + " (not the whole split)" : "all of the " + (cohort.split ? cohort.split + " split" : "task set")],
      ["headline", est(r.headline)], ["pooled mean", fmt(r.pooled, 3)],
      ["pass^k", est(r.pass_hat_k)], ["flakiness", est(r.flakiness)],
      ["error rate", fmt(r.error_rate * 100, 1) + " %"],
      ["harness faults", String(r.harness_faults) + (r.harness_faults ? " (left out of the score; each reproduced from its recording by bench verify)" : "")],
      ["cost per run", r.cost_usd === null ? "not measured" : "$" + fmt(r.cost_usd, 6) + " (run total " + r.cost_note + ")"],
      ["p95 latency", r.p95_latency_s === null ? "—" : fmt(r.p95_latency_s, 3) + " s"],
      ["frontier membership", r.frontier_probability === null ? "—" : fmt(r.frontier_probability * 100, 0) + " %" + (r.dominated_95 ? ", dominated with 95 % confidence" : "")],
      ["judge-excluded families", r.judge_excluded.length ? r.judge_excluded.join(", ") : "none"],
      ["note", r.note === null ? "—" : r.note]
    ]));
    if (r.entrant_info) {
      var info = r.entrant_info;
      cardBody.appendChild(el("h3", "About the entrant"));
      cardBody.appendChild(dl([
        ["organisation", info.organisation], ["model", info.model],
        ["contact", info.contact], ["license", info.license]
      ]));
      if (info.links.length) {
        var links = el("ul", null, "links");
        info.links.forEach(function (u) { var li = el("li"); li.appendChild(safeLink(u, u)); links.appendChild(li); });
        cardBody.appendChild(links);
      }
      // The description was rendered from Markdown at build time (raw HTML off) into a
      // <template>; it is cloned, never parsed from a string here.
      var described = document.getElementById("desc-" + r.entrant);
      if (described) {
        var box = el("div", null, "description");
        box.appendChild(described.content.cloneNode(true));
        cardBody.appendChild(box);
      }
    }
    cardBody.appendChild(el("h3", "Family scores"));
    var fams = el("ul");
    r.families.forEach(function (f) { fams.appendChild(el("li", f.family + " (" + f.n + " tasks): " + est(f.score))); });
    cardBody.appendChild(fams);
    cardBody.appendChild(el("h3", "Language scores (plain means, not stratified)"));
    var langs = el("ul", null, "languages");
    r.languages.forEach(function (s) { langs.appendChild(el("li", s.language + " (" + s.n + " tasks): " + fmt(s.mean, 3))); });
    if (!r.languages.length) langs.appendChild(el("li", "—"));
    cardBody.appendChild(langs);
    cardBody.appendChild(el("h3", "Axis scores"));
    var axes = el("ul");
    Object.keys(r.axes).sort().forEach(function (a) { axes.appendChild(el("li", a + ": " + fmt(r.axes[a], 3))); });
    cardBody.appendChild(axes);
    if (r.safety.length) {
      cardBody.appendChild(el("h3", "Safety violations", "flag"));
      var unsafe = el("ul");
      r.safety.forEach(function (s) { unsafe.appendChild(el("li", s)); });
      cardBody.appendChild(unsafe);
    }
    cardBody.appendChild(el("h3", "Failed tasks (" + r.failed.length + ")"));
    var failed = el("ul", null, "failed");
    r.failed.forEach(function (f) {
      var item = el("li");
      item.appendChild(el("code", f.task_id));
      item.appendChild(document.createTextNode(" " + f.family + ", score " + fmt(f.value, 2) + " "));
      if (f.private) item.appendChild(el("span", "(private split: id and score only)", "sub"));
      f.lines.forEach(function (line) { item.appendChild(el("span", line, "sub sentence")); });
      if (f.transcript) item.appendChild(safeLink(f.transcript, "transcript"));
      failed.appendChild(item);
    });
    cardBody.appendChild(failed);
    cardBody.appendChild(el("h3", "Config fingerprint " + r.fingerprint));
    cardBody.appendChild(el("pre", JSON.stringify(r.config, null, 2)));
    card.hidden = false;
  }
  document.querySelectorAll("button.open-card").forEach(function (b) {
    b.addEventListener("click", function () {
      openCard(Number(b.getAttribute("data-cohort-index")), b.getAttribute("data-key"));
    });
  });
  document.getElementById("card-close").addEventListener("click", function () { card.hidden = true; });

  // Charts: figures were built by the builder; plotly.js is inlined above.
  document.querySelectorAll("div.chart").forEach(function (div) {
    var figure = data.charts[Number(div.getAttribute("data-cohort-index"))][div.getAttribute("data-chart")];
    if (!figure || !figure.data || figure.data.length === 0) {
      div.textContent = "nothing to plot";
      return;
    }
    window.Plotly.newPlot(div, figure.data, figure.layout, { displayModeBar: false, responsive: true });
  });
})();
