// The transcript viewer: transcript.html#<key>/<task id> shows that task's attempts from
// transcripts/<key>.jsonl.gz beside the page (one attempt record per line, gzip). Everything in
// the file is the entrant's: it is written with textContent and createElement only, no string
// of it becomes a link or markup, and direction controls are shown as visible marks.
(function () {
  "use strict";
  // the colour scheme the reader chose on the board (board.js keeps it; none: the system's)
  try {
    var scheme = window.localStorage.getItem("bench-board-scheme");
    if (scheme === "light" || scheme === "dark") document.documentElement.setAttribute("data-scheme", scheme);
  } catch (err) { /* storage refused: the system's scheme */ }
  var main = document.getElementById("main");
  var status = document.getElementById("status");
  var title = document.getElementById("title");
  var dir = main.getAttribute("data-dir");
  var loaded = { key: null, text: null };

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = show(text);
    if (cls) node.className = cls;
    return node;
  }
  // Bidirectional controls (LRE..RLO, LRI..PDI, LRM, RLM, ALM) would reorder what follows them:
  // each is shown as its code point instead.
  var BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  function show(value) {
    var text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
    if (text === undefined) text = String(value);
    return text.replace(BIDI, function (c) {
      return "\u27e6U+" + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0") + "\u27e7";
    });
  }
  function pre(value, cls) { return el("pre", value === "" ? "(empty)" : value, cls); }
  function fmt(x, digits) { return typeof x === "number" && isFinite(x) ? x.toFixed(digits) : "—"; }
  function dl(pairs) {
    var list = el("dl", null, "facts");
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") return;
      list.appendChild(el("dt", p[0]));
      var dd = el("dd", p[1]);
      if (p[2]) dd.className = p[2];
      list.appendChild(dd);
    });
    return list;
  }
  function done(state) {
    document.documentElement.setAttribute("data-transcript", state);
  }
  function rawLink(key) {
    var a = el("a", dir + "/" + key + ".jsonl.gz");
    a.href = dir + "/" + key + ".jsonl.gz";
    return a;
  }
  function fail(message, key) {
    var p = el("p", message, "problem");
    if (key) {
      p.appendChild(document.createTextNode(" The raw file (one JSON record per line, gzip): "));
      p.appendChild(rawLink(key));
      p.appendChild(document.createTextNode("."));
    }
    main.replaceChildren(p);
    done("error");
  }

  function target() {
    var m = /^#([0-9a-f]{24})\/(.+)$/.exec(location.hash);
    if (!m) return null;
    try { return { key: m[1], task: decodeURIComponent(m[2]) }; } catch (err) { return null; }
  }

  // At most this many bytes of a data file are read, and at most this many once inflated
  // (verify's own cap on attempts.jsonl.gz, inflated): a larger file, or a "gzip bomb", is
  // refused as soon as it passes the cap, never inflated whole.
  var MAX_BYTES = 64 * 1024 * 1024;
  function readCapped(stream, what) {
    var reader = stream.getReader();
    var chunks = [];
    var total = 0;
    function next() {
      return reader.read().then(function (step) {
        if (step.done) {
          var out = new Uint8Array(total);
          var at = 0;
          chunks.forEach(function (c) { out.set(c, at); at += c.length; });
          return out;
        }
        total += step.value.length;
        if (total > MAX_BYTES) {
          reader.cancel().catch(function () {});
          throw new Error("the data file is larger than " + (MAX_BYTES / 1048576) + " MiB " + what +
            ": the viewer does not read it");
        }
        chunks.push(step.value);
        return next();
      });
    }
    return next();
  }

  function gunzip(bytes) {
    // a server that sent the file with Content-Encoding: gzip has had the browser inflate it
    // (read through readCapped all the same)
    if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
      return Promise.resolve(new TextDecoder().decode(bytes));
    }
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot inflate gzip (no DecompressionStream)"));
    }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return readCapped(stream, "once inflated").then(function (out) { return new TextDecoder().decode(out); });
  }

  function load(key) {
    if (loaded.key === key) return Promise.resolve(loaded.text);
    return fetch(dir + "/" + key + ".jsonl.gz", { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("the data file did not load (HTTP " + response.status + ")");
        if (!response.body) return response.arrayBuffer().then(function (b) { return new Uint8Array(b); });
        return readCapped(response.body, "as served");
      })
      .then(gunzip)
      .then(function (text) { loaded = { key: key, text: text }; return text; });
  }

  function recordsOf(text, task) {
    var lines = text.split("\n");
    var needle = JSON.stringify(task);
    var picked = lines.filter(function (line) { return line.indexOf(needle) !== -1; });
    // a task id the writer escaped differently is found by reading every line
    if (!picked.length) picked = lines;
    var found = [];
    picked.forEach(function (line) {
      if (!line.trim()) return;
      var record;
      try { record = JSON.parse(line); } catch (err) { return; }
      if (record && typeof record === "object" && record.task_id === task) found.push(record);
    });
    found.sort(function (a, b) { return (Number(a.repeat) || 0) - (Number(b.repeat) || 0); });
    return found;
  }

  function list(items) { return Array.isArray(items) ? items : []; }

  function verdictItem(v) {
    var state = !v.decided ? "undecided" : v.passed ? "pass" : "fail";
    var li = el("li", null, "verdict " + state);
    li.appendChild(el("span", state === "pass" ? "ok" : state === "fail" ? "FAIL" : "?", "mark"));
    li.appendChild(el("code", v.type));
    li.appendChild(document.createTextNode(": "));
    li.appendChild(el("span", v.sentence, "text"));
    var notes = [];
    if (typeof v.credit === "number" && state !== "pass") notes.push("credit " + fmt(v.credit, 2));
    if (typeof v.weight === "number" && v.weight !== 1) notes.push("weight " + fmt(v.weight, 2));
    if (v.axis) notes.push("axis " + show(v.axis));
    if (v.safety) notes.push("safety");
    if (v.untrusted_judge) notes.push("judge not calibrated: left out");
    if (notes.length) li.appendChild(el("span", " (" + notes.join(", ") + ")", "sub"));
    return li;
  }

  function messageItem(m, names) {
    var li = el("li", null, "role-" + (["system", "user", "assistant", "tool"].indexOf(m.role) >= 0 ? m.role : "other"));
    var head = el("div", null);
    head.appendChild(el("span", m.role, "role"));
    if (m.role === "tool") {
      var called = names[m.tool_call_id] || m.name;
      head.appendChild(el("span", " result" + (called ? " of " + show(called) : "") + (m.tool_call_id ? " (call " + show(m.tool_call_id) + ")" : ""), "sub"));
    }
    li.appendChild(head);
    if (m.content !== undefined && m.content !== null && (m.content !== "" || !list(m.tool_calls).length)) {
      li.appendChild(pre(m.content));
    }
    list(m.tool_calls).forEach(function (c) {
      var box = el("div", null, "call");
      box.appendChild(el("span", "tool call → ", "sub"));
      box.appendChild(el("code", c.name));
      if (c.id) box.appendChild(el("span", " (call " + show(c.id) + ")", "sub"));
      box.appendChild(pre(c.arguments || {}));
      if (c.arguments_error) {
        var bad = el("div", null, "error");
        bad.appendChild(el("span", "arguments were not a JSON object: ", "problem"));
        bad.appendChild(pre(c.arguments_error));
        box.appendChild(bad);
      }
      li.appendChild(box);
    });
    return li;
  }

  function toolRun(t) {
    var li = el("li", null, "role-tool");
    var head = el("div", null);
    head.appendChild(el("code", t.name));
    head.appendChild(el("span", " (call " + show(t.id) + (typeof t.turn === "number" ? ", user turn " + (t.turn + 1) : "") + ")", "sub"));
    li.appendChild(head);
    li.appendChild(el("div", "arguments", "sub"));
    li.appendChild(pre(t.arguments || {}));
    if (t.error !== null && t.error !== undefined) {
      var bad = el("div", null, "error");
      bad.appendChild(el("span", "error", "problem"));
      bad.appendChild(pre(t.error));
      li.appendChild(bad);
    } else {
      li.appendChild(el("div", "result", "sub"));
      li.appendChild(pre(t.result === undefined ? null : t.result));
    }
    if (list(t.retrieved).length) {
      li.appendChild(el("div", "search results (passage ids): " + list(t.retrieved).map(show).join(", "), "sub"));
    }
    return li;
  }

  function attempt(r) {
    var section = el("section", null, "attempt");
    section.id = "repeat-" + (Number(r.repeat) || 0);
    var value = typeof r.value === "number" ? fmt(r.value, 3) : "n/a";
    section.appendChild(el("h2", "Repeat " + show(String(r.repeat)) + ": " + show(String(r.outcome)) + ", score " + value));
    var trace = r.trace && typeof r.trace === "object" ? r.trace : {};
    var usage = trace.usage || {};
    var bad = r.outcome === "errored" || r.outcome === "over_budget" || r.outcome === "not_scorable";
    section.appendChild(dl([
      ["outcome", r.outcome, bad ? "problem" : null],
      ["passed", r.passed === true ? "yes" : r.passed === false ? "no" : "—"],
      ["reason", r.reason, "problem"],
      ["harness fault", r.fault, "problem"],
      ["budgets run out", list(r.exceeded).length ? list(r.exceeded).map(show).join(", ") : null, "problem"],
      ["family", r.family], ["language", r.language],
      // Counts an entrant did not report are not measured, never 0 (usage_measured, as bench run says).
      ["tokens", trace.usage_measured !== true ? "not measured" : (usage.prompt_tokens || 0) + " prompt / " + (usage.completion_tokens || 0) + " completion / " + (usage.cached_tokens || 0) + " cached"],
      ["cost", trace.cost_usd === null || trace.cost_usd === undefined ? "not measured" : "$" + fmt(trace.cost_usd, 6)],
      ["latency", fmt(trace.latency_s, 3) + " s"],
      ["model calls", String(list(trace.exchanges).length)],
      ["started", r.started_at], ["finished", r.finished_at]
    ]));
    if (list(r.safety_violations).length) {
      section.appendChild(el("h3", "Safety violations", "problem"));
      var unsafe = el("ul", null, "error");
      list(r.safety_violations).forEach(function (s) { unsafe.appendChild(el("li", s)); });
      section.appendChild(unsafe);
    }
    section.appendChild(el("h3", "Checks"));
    var checks = el("ul", null, "verdicts");
    list(r.verdicts).forEach(function (v) { if (v && typeof v === "object") checks.appendChild(verdictItem(v)); });
    if (!list(r.verdicts).length) checks.appendChild(el("li", "no check decided this attempt", "sub"));
    section.appendChild(checks);

    section.appendChild(el("h3", "Conversation"));
    var names = {};
    list(trace.messages).forEach(function (m) {
      list(m && m.tool_calls).forEach(function (c) { if (c && typeof c.id === "string") names[c.id] = c.name; });
    });
    var turns = el("ol", null, "turns");
    list(trace.messages).forEach(function (m) { if (m && typeof m === "object") turns.appendChild(messageItem(m, names)); });
    if (!list(trace.messages).length) turns.appendChild(el("li", "no messages recorded", "sub"));
    section.appendChild(turns);

    if (list(trace.tool_calls).length) {
      section.appendChild(el("h3", "Tool calls as the tools ran them (" + list(trace.tool_calls).length + ")"));
      var runs = el("ol", null, "turns");
      list(trace.tool_calls).forEach(function (t) { if (t && typeof t === "object") runs.appendChild(toolRun(t)); });
      section.appendChild(runs);
    }
    if (list(trace.retrieved).length) {
      section.appendChild(el("h3", "Search results"));
      section.appendChild(el("p", "passages retrieval returned, first time seen: " + list(trace.retrieved).map(show).join(", "), "text"));
    }
    section.appendChild(el("h3", "Final answer" + (list(trace.answers).length > 1 ? "s (one per user turn)" : "")));
    var answers = el("div", null, "answer");
    list(trace.answers).forEach(function (a) { answers.appendChild(pre(a)); });
    if (!list(trace.answers).length) answers.appendChild(el("p", "no final answer", "sub"));
    section.appendChild(answers);
    return section;
  }

  function render() {
    var t = target();
    if (!t) {
      title.textContent = "Transcript";
      fail("No task named: open this page from a failed task's \"transcript\" link on the board.", null);
      return;
    }
    title.textContent = "Transcript: " + show(t.task);
    document.title = "bench-suite board: " + show(t.task);
    if (location.protocol === "file:") {
      fail("This page was opened as a file, and a browser does not let a file's page read another file: " +
        "serve the directory (e.g. python3 -m http.server) and open it over http, or read the raw file.", t.key);
      return;
    }
    main.replaceChildren(status);
    status.textContent = "Loading…";
    load(t.key).then(function (text) {
      if (target() === null || target().key !== t.key || target().task !== t.task) return;
      var records = recordsOf(text, t.task);
      var shown = records.filter(function (r) { return r.split !== "private"; });
      if (!records.length) { fail("No attempt of this task is in the row's data file.", t.key); return; }
      if (!shown.length) { fail("This task is in the private split: the board shows its id and score only.", null); return; }
      var parts = document.createDocumentFragment();
      var head = el("p", null, "meta");
      head.appendChild(document.createTextNode(shown.length + (shown.length === 1 ? " attempt" : " attempts") + " of "));
      head.appendChild(el("code", t.task));
      head.appendChild(document.createTextNode(" (" + show(String(shown[0].family)) + "), run " + show(String(shown[0].run_id)) + ". Raw file: "));
      head.appendChild(rawLink(t.key));
      parts.appendChild(head);
      shown.forEach(function (r) { parts.appendChild(attempt(r)); });
      main.replaceChildren(parts);
      done("shown");
    }).catch(function (err) {
      fail("The transcript could not be shown: " + (err && err.message ? err.message : String(err)) + ".", t.key);
    });
  }

  // "← the board" goes back to the page the link came from: a suite's own page
  // (suite-<name>.html) as well as index.html. The board sends no referrer, so its link says
  // ?from=<page>; only a plain page name of this directory is taken, anything else keeps
  // index.html.
  (function () {
    var back = document.getElementById("back");
    var from = new URLSearchParams(location.search).get("from");
    if (back && from && /^[a-z0-9][a-z0-9-]{0,80}\.html$/.test(from) && from !== "transcript.html") {
      back.setAttribute("href", from);
    }
  })();

  window.addEventListener("hashchange", render);
  render();
})();
