// The replay viewer: steps through a record by asking the server for one step at a time.
// Everything that comes from a record is written as text (textContent); only the table, which
// the server renders from its escaping templates, is set as HTML.
(function () {
  "use strict";
  const root = document.getElementById("viewer");
  if (!root) return;
  const key = root.dataset.key;
  const view = root.dataset.view;
  const total = parseInt(root.dataset.total, 10);
  const chapters = Array.from(document.querySelectorAll("#chapter option")).map((o) => parseInt(o.value, 10));
  let step = Math.max(0, Math.min(parseInt(root.dataset.start, 10) || 0, total));
  let asked = 0; // the latest request: answers to older ones are dropped

  const $ = (id) => document.getElementById(id);
  const el = (tag, text, cls) => {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  };
  const clear = (node) => { while (node.firstChild) node.removeChild(node.firstChild); };
  const number = (x) => (Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(3));

  function go(target) {
    step = Math.max(0, Math.min(target, total));
    $("step").textContent = step + " / " + total;
    const mine = ++asked;
    fetch("/api/replays/" + encodeURIComponent(key) + "/steps/" + step + "?view=" + encodeURIComponent(view),
          { headers: { Accept: "application/json" } })
      .then((r) => r.json().then((body) => ({ ok: r.ok, body })))
      .then(({ ok, body }) => {
        if (mine !== asked) return;
        if (!ok) { $("status").textContent = body.error || "the step could not be loaded"; return; }
        show(body);
      })
      .catch(() => { if (mine === asked) $("status").textContent = "the server did not answer"; });
  }

  function show(s) {
    $("status").textContent = "";
    $("step").textContent = s.step + " / " + s.total;
    $("table").innerHTML = s.table_html; // rendered by the server's escaping templates
    showLog(s.log, s.step);
    showThinking(s.thinking);
    showHidden(s.hidden);
    showFinal(s.final);
    const chapter = $("chapter");
    let current = 0;
    chapters.forEach((first, i) => { if (first <= s.step) current = i; });
    if (chapter.options.length) chapter.selectedIndex = current;
    const url = new URL(window.location.href);
    url.searchParams.set("view", view);
    url.searchParams.set("step", String(s.step));
    window.history.replaceState(null, "", url.toString());
  }

  function showLog(entries, current) {
    const log = $("log");
    clear(log);
    entries.forEach((entry) => {
      const item = el("li", null, entry.step === current ? "current" : "");
      item.dataset.step = String(entry.step);
      const lines = entry.lines.length ? entry.lines : [entry.step === 0 ? "The game is dealt." : "…"];
      lines.forEach((line) => item.appendChild(el("p", line)));
      item.addEventListener("click", () => go(entry.step));
      log.appendChild(item);
    });
    const mark = log.querySelector("li.current");
    if (mark) mark.scrollIntoView({ block: "nearest" });
  }

  function showThinking(t) {
    const panel = $("thinking-panel");
    panel.hidden = !t;
    if (!t) return;
    const who = t.person ? "Seat " + t.seat + " (a person) played " + t.played + ". What " + (t.agent || "an agent") + " would have done:"
                         : "Seat " + t.seat + " (" + t.agent + ") played " + t.played + ". What it weighed:";
    $("thinking-title").textContent = who;
    const problem = $("thinking-problem");
    problem.hidden = !t.problem;
    problem.textContent = t.problem || "";
    const body = $("thinking").querySelector("tbody");
    clear(body);
    t.thoughts.forEach((th) => {
      const row = el("tr", null, th.played ? "played" : "");
      row.appendChild(el("td", th.label + (th.played ? " (played)" : "")));
      row.appendChild(el("td", th.kind === "probability" ? (100 * th.score).toFixed(1) + "%" : number(th.score)));
      row.appendChild(el("td", th.kind + (th.note ? "; " + th.note : "")));
      body.appendChild(row);
    });
    $("thinking").hidden = t.thoughts.length === 0;
    const beliefs = $("beliefs");
    const bbody = beliefs.querySelector("tbody");
    clear(bbody);
    t.beliefs.forEach((b) => {
      const row = el("tr");
      row.appendChild(el("td", b.label));
      row.appendChild(el("td", number(b.value)));
      if ("truth" in b) row.appendChild(el("td", b.truth === null || b.truth === undefined ? "–" : number(b.truth)));
      bbody.appendChild(row);
    });
    beliefs.hidden = $("beliefs-title").hidden = t.beliefs.length === 0;
  }

  function showHidden(facts) {
    const panel = $("hidden-panel");
    panel.hidden = !facts;
    if (!facts) return;
    const body = $("hidden").querySelector("tbody");
    clear(body);
    facts.forEach(([what, value]) => {
      const row = el("tr");
      row.appendChild(el("td", what));
      row.appendChild(el("td", value));
      body.appendChild(row);
    });
  }

  function showFinal(f) {
    const panel = $("final");
    panel.hidden = !f;
    if (!f) return;
    $("final-title").textContent = f.finished ? "Game over" : "Game left unfinished";
    const lines = $("final-lines");
    clear(lines);
    f.lines.forEach((line) => lines.appendChild(el("p", line)));
  }

  function chapterJump(direction) {
    if (!chapters.length) return;
    if (direction > 0) {
      const next = chapters.find((first) => first > step);
      go(next === undefined ? total : next);
    } else {
      const earlier = chapters.filter((first) => first < step);
      go(earlier.length ? earlier[earlier.length - 1] : 0);
    }
  }

  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(total));
  $("chapter").addEventListener("change", (e) => go(parseInt(e.target.value, 10)));
  $("view-choice").addEventListener("change", (e) => {
    const url = new URL(window.location.href);
    url.searchParams.set("view", e.target.value);
    url.searchParams.set("step", String(step));
    window.location.assign(url.toString());
  });
  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT")) return;
    const keys = { ArrowRight: () => go(step + 1), ArrowLeft: () => go(step - 1), Home: () => go(0),
                   End: () => go(total), PageDown: () => chapterJump(1), PageUp: () => chapterJump(-1) };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  go(step);
})();
