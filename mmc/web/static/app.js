// meta-minichess page: Play (click to move), Inspect (a network's value, prior and search), Watch (records).
"use strict";

const $ = (id) => document.getElementById(id);
let game = null;        // the game as /api/games returns it
let selected = null;    // the square clicked first ("b2")
let record = null;      // the watched record
let ply = 0;
let options = null;     // /api/options

async function api(path, body) {
  const init = body === undefined ? {} :
    { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function say(text) {
  const box = $("message");
  box.textContent = text || "";
  box.hidden = !text;
}

function option(select, value, label) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label || value;
  select.appendChild(o);
}

async function loadOptions() {
  options = await api("/api/options");
  for (const v of options.variants) option($("variant"), v.name, `${v.name} (${v.size})`);
  for (const k of options.kinds) option($("kinds"), k);
  for (const [name, path] of Object.entries(options.registered)) {
    option($("model"), name, `${name} (registry: ${path})`);
    option($("analysis-model"), name, `${name} (registry: ${path})`);
  }
  for (const m of options.models) {
    option($("model"), m);
    option($("analysis-model"), m);
  }
  $("simulations").value = options.simulations;
  $("link-mlflow").href = options.links.mlflow;
  $("link-prefect").href = options.links.prefect;
  $("stage-runs").innerHTML = options.stages.map((r) =>
    `<li>${r.run}: <a href="${r.mlflow}" target="_blank" rel="noopener">MLflow run</a>` +
    (r.prefect ? ` · <a href="${r.prefect}" target="_blank" rel="noopener">Prefect flow run</a>` : "") + "</li>",
  ).join("") || "<li>No stage runs in mlflow.db.</li>";
  showModelLinks("model", "model-links");
  showModelLinks("analysis-model", "analysis-links");
  const query = new URLSearchParams(location.search);
  if (query.get("tab") === "watch") {
    for (const key of ["variant", "player", "opponent", "stage"]) $(`w-${key}`).value = query.get(key) || "";
    showTab("watch");
  }
}

// A model's links: the MLflow run (and Prefect flow run) that produced it, its games and its self-play.
function showModelLinks(selectId, boxId) {
  const box = $(boxId);
  const name = $(selectId).value;
  if (!options || !name) { box.innerHTML = ""; return; }
  const registered = options.registered[name];
  const links = options.model_links[registered || name] || {};
  const a = (href, text) => `<a href="${href}" target="_blank" rel="noopener">${text}</a>`;
  const parts = [];
  if (links.registered) parts.push(`registered as ${links.registered}`);
  if (links.mlflow) parts.push(a(links.mlflow, `MLflow run ${links.run}`));
  if (links.prefect) parts.push(a(links.prefect, "Prefect flow run"));
  if (links.games) parts.push(`<a href="${links.games}">its games</a>`);
  if (links.self_play) parts.push(`<a href="${links.self_play}">its self-play</a>`);
  box.innerHTML = parts.join(" · ");
}

// ---- Play ----

function squares(box) {
  return box.querySelectorAll(".square");
}

function drawGame() {
  $("board").removeEventListener("click", drawGame);  // a look back's way back
  $("board").innerHTML = game.position.svg;
  selected = null;
  const last = game.last;
  for (const sq of squares($("board"))) {
    if (last && (last.slice(0, 2) === sq.dataset.square || last.slice(2, 4) === sq.dataset.square)) {
      sq.classList.add("last");
    }
    sq.addEventListener("click", () => clickSquare(sq.dataset.square));
  }
  const moves = $("moves");
  moves.innerHTML = "";
  for (const [i, m] of game.moves.entries()) {
    const li = document.createElement("li");
    li.textContent = `${i + 1}. ${m}`;
    if (game.thought_plies.includes(i + 1)) {
      li.classList.add("thought");
      li.title = "the opponent's search when it played this: click";
    }
    li.addEventListener("click", () => lookBack(i + 1));
    moves.appendChild(li);
  }
  const p = game.position;
  let status;
  if (p.over) {
    const winner = p.result === "1-0" ? "white" : p.result === "0-1" ? "black" : null;
    const verdict = winner === null ? "Draw" : winner === game.human ? "You won" : "You lost";
    status = `Game over: ${verdict} — ${p.result} (${p.termination})`;
  } else {
    status = p.turn === game.human ? `Your move (${game.human})` : `${game.opponent} is thinking…`;
  }
  $("status").textContent = status;
  $("status").dataset.over = p.over ? "1" : "0";
  $("promotion").hidden = true;
  if ($("analysis").checked && !p.over) inspect();
  else $("inspect-out").innerHTML = "";
}

function mark(from) {
  for (const sq of squares($("board"))) {
    sq.classList.remove("selected", "target");
    if (from === null) continue;
    if (sq.dataset.square === from) sq.classList.add("selected");
    if (game.legal.some((m) => m.slice(0, 2) === from && m.slice(2, 4) === sq.dataset.square)) {
      sq.classList.add("target");
    }
  }
}

function clickSquare(square) {
  if (!game || game.position.over) return;
  if (selected !== null) {
    const moves = game.legal.filter((m) => m.slice(0, 2) === selected && m.slice(2, 4) === square);
    if (moves.length === 1) return sendMove(moves[0]);
    if (moves.length > 1) return choosePromotion(moves);
  }
  const from = game.legal.some((m) => m.slice(0, 2) === square) ? square : null;
  selected = from;
  mark(from);
}

const PROMOTION_GLYPHS = { q: "♛", r: "♜", b: "♝", n: "♞", k: "♚" };

function choosePromotion(moves) {
  const box = $("promotion-choices");
  box.innerHTML = "";
  for (const m of moves) {
    const b = document.createElement("button");
    b.textContent = PROMOTION_GLYPHS[m[4]] || m[4];
    b.title = m;
    b.dataset.move = m;
    b.addEventListener("click", () => sendMove(m));
    box.appendChild(b);
  }
  $("promotion").hidden = false;
}

async function sendMove(uci) {
  say("");
  mark(null);
  $("status").textContent = `${game.opponent} is thinking…`;
  try {
    game = await api(`/api/games/${game.id}/move`, { move: uci });
  } catch (error) {
    say(error.message);
  }
  drawGame();
}

async function startGame() {
  say("");
  const model = $("model").value;
  const opponent = model ? `net:${model}:sims=${$("simulations").value || 16}` : $("opponent").value;
  $("status").textContent = "Starting…";
  try {
    game = await api("/api/games", {
      variant: $("variant").value, opponent, color: $("color").value, fen: $("fen").value.trim(),
      seed: Math.floor(Math.random() * 1e9),
    });
    drawGame();
  } catch (error) {
    say(error.message);
    $("status").textContent = "";
  }
}

// ---- Inspect ----

function fmt(x, digits = 3) {
  return x === undefined ? "" : Number(x).toFixed(digits);
}

// A network's view (value, prior, search) as a table, the move it played (if any) marked.
function analysisHtml(r, title, played) {
  let html = `<p>${title}: value ${fmt(r.value)} for ${r.turn}` +
    (r.search_value !== undefined ? `, after ${r.simulations} simulations ${fmt(r.search_value)}` : "") + "</p>";
  html += "<table><tr><th>move</th><th>prior</th><th>visits</th><th>Q</th></tr>";
  for (const m of r.moves) {
    const mark = m.uci === played ? ' class="played"' : "";
    html += `<tr${mark}><td>${m.uci}</td><td>${fmt(m.prior)}</td><td>${m.visits ?? ""}</td><td>${fmt(m.q)}</td></tr>`;
  }
  return html + "</table>";
}

// Look back at move n: the position before it and, for the opponent's move, its search when it played it.
async function lookBack(n) {
  let back;
  try {
    back = await api(`/api/games/${game.id}/plies/${n}`);
  } catch (error) {
    return say(error.message);
  }
  $("board").innerHTML = back.position.svg;
  for (const sq of squares($("board"))) {
    if (back.move.slice(0, 2) === sq.dataset.square || back.move.slice(2, 4) === sq.dataset.square) {
      sq.classList.add("last");
    }
  }
  for (const [i, li] of $("moves").querySelectorAll("li").entries()) li.classList.toggle("viewing", i + 1 === n);
  $("status").textContent = `Looking back at move ${n}: ${back.move} (click the board to return)`;
  $("board").addEventListener("click", drawGame, { once: true });
  const out = $("inspect-out");
  out.innerHTML = back.thought
    ? analysisHtml(back.thought, `${game.opponent}'s search when it played ${back.move}`, back.move)
    : `<p>Move ${n} (${back.move}) was yours: the opponent had not searched.</p>`;
  if (back.thought) shade(back.thought.priors);
}

function shade(priors) {
  // Shade each destination square by the prior mass of the moves to it.
  const mass = {};
  for (const [uci, p] of Object.entries(priors)) mass[uci.slice(2, 4)] = (mass[uci.slice(2, 4)] || 0) + p;
  const most = Math.max(...Object.values(mass), 1e-9);
  for (const sq of squares($("board"))) {
    const p = mass[sq.dataset.square] || 0;
    sq.querySelector(".shade").setAttribute("opacity", p ? String(0.15 + 0.5 * (p / most)) : "0");
  }
}

async function inspect() {
  if (!game) return;
  const out = $("inspect-out");
  out.textContent = "thinking…";
  try {
    const r = await api(`/api/games/${game.id}/inspect`, {
      model: $("analysis-model").value || null, simulations: Number($("simulations").value || 0),
    });
    out.innerHTML = analysisHtml(r, r.model);
    shade(r.priors);
  } catch (error) {
    out.textContent = error.message;
  }
}

// ---- Watch ----

async function listRecords() {
  say("");
  const q = new URLSearchParams({
    variant: $("w-variant").value, player: $("w-player").value, opponent: $("w-opponent").value,
    stage: $("w-stage").value,
  });
  try {
    const r = await api(`/api/records?${q}`);
    const rows = r.records.map((g, i) =>
      `<tr data-i="${i}"><td>${g.variant}</td><td>${g.white}</td><td>${g.black}</td><td>${g.result}</td>` +
      `<td>${g.termination}</td><td>${g.plies}</td></tr>`).join("");
    $("w-list").innerHTML = r.records.length ? `<table>${rows}</table>` + (r.truncated ? "<p>(first 500)</p>" : "")
      : "<p>No game records found under data/jobs/.</p>";
    for (const tr of $("w-list").querySelectorAll("tr")) {
      const g = r.records[Number(tr.dataset.i)];
      tr.addEventListener("click", () => openRecord(g.file, g.index));
    }
  } catch (error) {
    say(error.message);
  }
}

async function openRecord(file, index) {
  try {
    record = await api(`/api/records/game?${new URLSearchParams({ file, index })}`);
  } catch (error) {
    return say(error.message);
  }
  $("w-slider").max = record.positions.length - 1;
  showPly(0);
}

function showPly(n) {
  if (!record) return;
  ply = Math.max(0, Math.min(n, record.positions.length - 1));
  $("w-board").innerHTML = record.positions[ply];
  const move = ply > 0 ? record.moves[ply - 1] : "start";
  if (ply > 0) {
    for (const sq of squares($("w-board"))) {
      if (move.slice(0, 2) === sq.dataset.square || move.slice(2, 4) === sq.dataset.square) sq.classList.add("last");
    }
  }
  $("w-slider").value = ply;
  $("w-ply").textContent = `ply ${ply}/${record.moves.length}: ${move}`;
  const end = ply === record.moves.length ? ` — ${record.result} (${record.termination})` : "";
  $("w-status").textContent = `${record.white} vs ${record.black}, ${record.variant}${end}`;
}

// ---- wiring ----

function showTab(name) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.tab === name);
  $("play").hidden = name !== "play";
  $("watch").hidden = name !== "watch";
  if (name === "watch" && !$("w-list").innerHTML) listRecords();
}

for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showTab(tab.dataset.tab));
$("start").addEventListener("click", startGame);
$("model").addEventListener("change", () => showModelLinks("model", "model-links"));
$("analysis-model").addEventListener("change", () => showModelLinks("analysis-model", "analysis-links"));
$("inspect").addEventListener("click", inspect);
$("analysis").addEventListener("change", () => { if ($("analysis").checked) inspect(); });
$("w-search").addEventListener("click", listRecords);
$("w-slider").addEventListener("input", () => showPly(Number($("w-slider").value)));
$("w-prev").addEventListener("click", () => showPly(ply - 1));
$("w-next").addEventListener("click", () => showPly(ply + 1));
document.addEventListener("keydown", (event) => {
  if ($("watch").hidden || event.target.tagName === "INPUT") return;
  if (event.key === "ArrowLeft") showPly(ply - 1);
  if (event.key === "ArrowRight") showPly(ply + 1);
  if (event.key === "Home") showPly(0);
  if (event.key === "End") showPly(record ? record.moves.length : 0);
});
loadOptions().catch((error) => say(error.message));
