// The table page: send the person's clicks, then show the agents' moves one by one.
(function () {
  "use strict";
  const root = document.getElementById("game");
  if (!root) return;
  const gameId = root.dataset.gameId;
  const seat = Number(root.dataset.seat);
  const table = document.getElementById("table");
  const moves = document.getElementById("moves");
  const log = document.getElementById("log");
  const status = document.getElementById("status");
  const speed = document.getElementById("speed");
  let step = Number(root.dataset.step);
  const tokenMeta = document.querySelector("meta[name='csrf-token']");
  const csrf = tokenMeta ? tokenMeta.content : "";

  // Pause between agent moves: ?delay=ms in the address wins, then the saved choice, then the default.
  const params = new URLSearchParams(window.location.search);
  let delay = Number(root.dataset.delay);
  if (params.has("delay")) delay = Number(params.get("delay"));
  else if (window.localStorage.getItem("clubEnvsDelay") !== null) delay = Number(window.localStorage.getItem("clubEnvsDelay"));
  const closest = Array.from(speed.options).reduce((a, b) => Math.abs(b.value - delay) < Math.abs(a.value - delay) ? b : a);
  speed.value = closest.value;
  speed.addEventListener("change", () => {
    delay = Number(speed.value);
    window.localStorage.setItem("clubEnvsDelay", speed.value);
  });

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  function setState(name, text) {
    root.dataset.state = name;
    status.textContent = text || "";
    status.className = "status " + name;
  }

  function addLines(lines) {
    for (const line of lines) {
      const li = document.createElement("li");
      li.textContent = line;
      log.appendChild(li);
    }
    log.scrollTop = log.scrollHeight;
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      credentials: "same-origin",
      body: JSON.stringify(body),
    });
    let data;
    try { data = await response.json(); } catch (e) { data = { error: response.statusText }; }
    if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
    return data;
  }

  function showState(s) {
    step = s.step;
    root.dataset.step = String(step);
    table.innerHTML = s.table_html;
    moves.innerHTML = s.moves_html;
    if (s.finished || s.abandoned) setState("over", s.finished ? "Game over." : "Game left unfinished.");
    else if (s.your_turn) setState("your-turn", "");
    else setState("waiting", "");
  }

  async function playFrames(data) {
    for (const frame of data.frames) {
      addLines(frame.lines);
      if (frame.table_html !== null) table.innerHTML = frame.table_html; // a frame without lines is not drawn
      if (delay > 0 && frame.lines.length) await sleep(delay);
    }
    showState(data.state);
  }

  async function send(url, body) {
    setState("busy", "The agents are playing…");
    moves.querySelectorAll("button").forEach((b) => { b.disabled = true; });
    table.querySelectorAll("button.move").forEach((b) => { b.disabled = true; });
    try {
      await playFrames(await post(url, body));
    } catch (err) {
      setState("error", err.message);
      // Resynchronise with the server: the refused request changed nothing there.
      try {
        const response = await fetch("/api/games/" + gameId, { credentials: "same-origin" });
        if (response.ok) { showState(await response.json()); status.textContent = err.message; status.className = "status error"; }
      } catch (e) { /* keep the message */ }
    }
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.move");
    if (button && root.dataset.state === "your-turn" && !button.disabled) {
      send("/api/games/" + gameId + "/move", { game_id: gameId, seat: seat, action: Number(button.dataset.action), step: step });
      return;
    }
    if (event.target.id === "quit" && root.dataset.state !== "busy") {
      if (window.confirm("Leave this game? It is saved unfinished.")) {
        post("/api/games/" + gameId + "/quit", {}).then(showState).catch((err) => setState("error", err.message));
      }
    }
  });

  if (root.dataset.over === "true") setState("over", "Game over.");
  else if (root.dataset.yourTurn === "true") setState("your-turn", "");
  else send("/api/games/" + gameId + "/advance", { step: step });
})();
