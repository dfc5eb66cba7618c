// meta-minichess page: Play (click to move), Inspect (a network's value, prior and search), Watch (records).
// Any game family: the server sends the board as SVG (one [data-square] group per cell) and, for each legal move,
// its text and its click path (the cells a person clicks, in order: each step a cell name, or a list of alternative
// cell names any of which makes the step, as a column under gravity); moves are matched against the clicks here.
"use strict";

const $ = (id) => document.getElementById(id);
let game = null;        // the game as /api/games returns it
let clicks = [];        // the cells clicked so far toward a move (["b2"])
let record = null;      // the watched record
let ply = 0;
let options = null;     // /api/options
let shaded = null;      // the analysis the heat map shows on the board drawn (null: none)

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

// The families the server is still preparing as it starts (their rules and search compiled, once per clone, or
// loaded from the cache): said on the page until they are ready, so that a first move is never a silent wait.
let preparing = [];

function preparingText(family) {
  return `Preparing ${family}: its rules and search are compiling, once per clone (mmc compile does it ahead); ` +
    "the game goes on when they are ready…";
}

function thinking(opponent, family) {
  return family && preparing.includes(family) ? preparingText(family) : `${opponent} is thinking…`;
}

function showPreparing(status) {
  preparing = status.pending;
  const line = $("preparing");
  const under = status.current ? ` (now ${status.current}, ${Math.round(status.seconds)} s so far)` : "";
  line.textContent = preparing.length ? `Preparing ${preparing.join(", ")}${under}: once per clone.` : "";
  line.hidden = !preparing.length;
  if (preparing.length) setTimeout(() => api("/api/preparing").then(showPreparing).catch(() => {}), 1000);
}

async function loadOptions() {
  options = await api("/api/options");
  showPreparing(options.preparing);
  const groups = {};
  for (const f of options.families) {
    groups[f.name] = document.createElement("optgroup");
    groups[f.name].label = f.description;
    $("variant").appendChild(groups[f.name]);
  }
  for (const v of options.variants) option(groups[v.family], v.name, `${v.name} (${v.size})`);
  const forms = options.families.filter((f) => f.generated).map((f) => `${f.name}: ${f.generated}`);
  if (forms.length) $("variant-id").title = `any variant id; generated ones: ${forms.join("; ")}`;
  showSides();
  for (const k of options.kinds) option($("kinds"), k);
  for (const b of options.baselines) {
    option($("kinds"), `baseline:${b.name}`, `trained for ${b.variant}`);
    option($("analysis-model"), `baseline:${b.name}`, `baseline:${b.name} (shipped, trained for ${b.variant})`);
  }
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

// The variant to play: the typed id if any (a generated one: mnk_7x5_k4), else the chosen one of the list.
let typed = null;

function chosenVariant() {
  return $("variant-id").value.trim() ? typed : options.variants.find((v) => v.name === $("variant").value);
}

// A typed variant id, looked up by the server (its family's players, or the one line that refuses it).
async function lookUpVariant() {
  const id = $("variant-id").value.trim();
  typed = null;
  say("");
  if (id) {
    try {
      typed = await api(`/api/variants/${encodeURIComponent(id)}`);
      $("status").textContent = `${typed.name}: ${typed.description}`;
    } catch (error) {
      say(error.message);
    }
  }
  showSides();
}

// The person's side: the players of the chosen variant's family (first or second kept across variants).
function showSides() {
  const chosen = chosenVariant();
  const side = $("color");
  const keep = Math.max(side.selectedIndex, 0);
  side.innerHTML = "";
  for (const name of chosen ? chosen.players : []) option(side, name);
  side.selectedIndex = Math.min(keep, side.options.length - 1);
  showDefaultOpponent(chosen);
}

// The default opponent: the shipped baseline meant for the variant, else one of its family, else random. A spec
// the person typed is kept across variants.
let opponentTyped = false;

function showDefaultOpponent(chosen) {
  if (opponentTyped || !options) return;
  const baselines = options.baselines || [];
  const own = chosen && baselines.find((b) => b.variant === chosen.name);
  const kin = chosen && baselines.find((b) => b.family === chosen.family);
  const baseline = own || kin;
  $("opponent").value = baseline ? `baseline:${baseline.name}` : "random";
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

function highlight(box, cells) {
  for (const sq of squares(box)) if (cells.includes(sq.dataset.square)) sq.classList.add("last");
}

function drawGame() {
  $("board").removeEventListener("click", drawGame);  // a look back's way back
  $("board").innerHTML = game.position.svg;
  clicks = [];
  highlight($("board"), game.last_cells);
  for (const sq of squares($("board"))) sq.addEventListener("click", () => clickSquare(sq.dataset.square));
  // one numbered turn per player's moves in a row (a hop chain is one turn), each move clickable on its own
  const moves = $("moves");
  moves.innerHTML = "";
  let li = null;
  for (const [i, m] of game.moves.entries()) {
    if (li === null || game.movers[i] !== game.movers[i - 1]) {
      li = document.createElement("li");
      li.textContent = `${moves.children.length + 1}. `;
      moves.appendChild(li);
    } else {
      li.appendChild(document.createTextNode(" "));
    }
    const span = document.createElement("span");
    span.className = "ply";
    span.textContent = m;
    span.dataset.ply = String(i + 1);
    if (game.thought_plies.includes(i + 1)) {
      span.classList.add("thought");
      span.title = "the opponent's search when it played this: click";
    }
    span.addEventListener("click", () => lookBack(i + 1));
    li.appendChild(span);
  }
  const p = game.position;
  let status;
  if (p.over) {
    const winner = p.result === "1-0" ? game.players[0] : p.result === "0-1" ? game.players[1] : null;
    const verdict = winner === null ? "Draw" : winner === game.human ? "You won" : "You lost";
    status = `Game over: ${verdict} — ${p.result} (${p.termination})`;
  } else {
    status = p.turn === game.human ? `Your move (${game.human})` : thinking(game.opponent, game.family);
  }
  $("status").textContent = p.caption ? `${status} · ${p.caption}` : status;
  $("status").dataset.over = p.over ? "1" : "0";
  showChoices([]);
  showPasses();
  goOn();
  shaded = null;
  if ($("analysis").checked && !p.over) inspect();
  else $("inspect-out").innerHTML = "";
}

// ---- Moves by clicks: each legal move is its text and its path of steps ----

// The cells that make a step of a path: the step's one cell, or its alternatives.
function stepCells(step) {
  return Array.isArray(step) ? step : [step];
}

function startsWith(path, prefix) {
  return prefix.length <= path.length && prefix.every((cell, i) => stepCells(path[i]).includes(cell));
}

// The legal moves (texts) whose path begins with `prefix`; with `exact`, those whose path is exactly `prefix`.
function movesFrom(prefix, exact = false) {
  return Object.entries(game.paths)
    .filter(([, path]) => path.length > 0 && startsWith(path, prefix) && (!exact || path.length === prefix.length))
    .map(([text]) => text);
}

// A move of the person that the same player goes on with (a jump chain's next hop) starts where their last move
// ended: that cell stays selected, so the next click is the next landing (or the same cell again, to end).
function goOn() {
  const last = game.last_cells[game.last_cells.length - 1];
  if (!last || !movesFrom([last]).length) return;
  clicks = [last];
  mark();
  showChoices(movesFrom(clicks, true), true);
}

// The clicked cells selected, and the cells that can come next targeted.
function mark() {
  const next = new Set();
  if (clicks.length) {
    for (const path of Object.values(game.paths)) {
      if (path.length <= clicks.length || !startsWith(path, clicks)) continue;
      for (const cell of stepCells(path[clicks.length])) next.add(cell);
    }
  }
  for (const sq of squares($("board"))) {
    sq.classList.toggle("selected", clicks.includes(sq.dataset.square));
    sq.classList.toggle("target", next.has(sq.dataset.square));
  }
}

function clickSquare(cell) {
  if (!game || game.position.over || !game.legal.length) return;
  const ended = clicks.length > 0 && cell === clicks[clicks.length - 1] ? movesFrom(clicks, true) : [];
  if (ended.length) return finish(ended);  // a second click on the last cell ends a path that could go on
  clicks = movesFrom([...clicks, cell]).length ? [...clicks, cell] : movesFrom([cell]).length ? [cell] : [];
  const complete = clicks.length ? movesFrom(clicks, true) : [];
  const longer = movesFrom(clicks).filter((text) => game.paths[text].length > clicks.length);
  mark();
  if (complete.length && !longer.length) return finish(complete);
  showChoices(complete, true);
}

// Play the move, or offer a choice when several moves share the same path (chess's promotions).
function finish(moves) {
  if (moves.length === 1) return sendMove(moves[0]);
  showChoices(moves);
}

// Buttons for `moves`, by their text; `endHere`: the moves end at the last click, though longer paths go on.
function showChoices(moves, endHere = false) {
  const box = $("choice-buttons");
  box.innerHTML = "";
  if (endHere && moves.length) {
    const b = document.createElement("button");
    b.textContent = "end here";
    b.title = "end the move on the last cell clicked (or click it again)";
    b.dataset.end = "1";
    b.addEventListener("click", () => finish(moves));
    box.appendChild(b);
  } else {
    for (const m of moves) box.appendChild(moveButton(m));
  }
  $("choice").hidden = !moves.length;
}

function moveButton(text) {
  const b = document.createElement("button");
  b.textContent = text;
  b.title = text;
  b.dataset.move = text;
  b.addEventListener("click", () => sendMove(text));
  return b;
}

// A move that no cell makes (a pass) is a button.
function showPasses() {
  const passes = Object.entries(game.paths).filter(([, path]) => path.length === 0).map(([text]) => text);
  const box = $("pass-buttons");
  box.innerHTML = "";
  for (const m of passes) box.appendChild(moveButton(m));
  $("passes").hidden = !passes.length;
}

async function sendMove(text) {
  say("");
  clicks = [];
  mark();
  $("status").textContent = thinking(game.opponent, game.family);
  try {
    game = await api(`/api/games/${game.id}/move`, { move: text });
  } catch (error) {
    say(error.message);
  }
  drawGame();
}

async function startGame() {
  say("");
  const model = $("model").value;
  const opponent = model ? `net:${model}:sims=${$("simulations").value || 16}` : $("opponent").value;
  const chosen = chosenVariant();
  $("status").textContent = chosen && preparing.includes(chosen.family) ? preparingText(chosen.family) : "Starting…";
  try {
    game = await api("/api/games", {
      variant: $("variant-id").value.trim() || $("variant").value, opponent, color: $("color").value, fen: $("fen").value.trim(),
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
    const mark = m.move === played ? ' class="played"' : "";
    html += `<tr${mark}><td>${m.move}</td><td>${fmt(m.prior)}</td><td>${m.visits ?? ""}</td><td>${fmt(m.q)}</td></tr>`;
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
  highlight($("board"), back.cells);
  for (const span of $("moves").querySelectorAll("span.ply")) span.classList.toggle("viewing", Number(span.dataset.ply) === n);
  $("status").textContent = `Looking back at move ${n}: ${back.move} (click the board to return)`;
  $("board").addEventListener("click", drawGame, { once: true });
  const out = $("inspect-out");
  out.innerHTML = back.thought
    ? analysisHtml(back.thought, `${game.opponent}'s search when it played ${back.move}`, back.move)
    : `<p>Move ${n} (${back.move}) was yours: the opponent had not searched.</p>`;
  if (back.thought) shade(back.thought);
}

// The heat map: shade each move's destination cell (the last cell of its path) by what "heat map" picks, from the
// mover's view: the prior mass of the moves to it, their visits, or the best value (Q) among its searched moves.
// Without a search (0 simulations) visits and value fall back to the prior.
function shade(analysis) {
  shaded = analysis;
  let by = $("shade-by").value;
  if (!analysis.visits) by = "prior";
  const per = { prior: analysis.priors, visits: analysis.visits, value: analysis.q }[by];
  const heat = {};
  for (const [text, x] of Object.entries(per)) {
    const cell = analysis.cells[text];
    if (!cell || (by === "value" && !analysis.visits[text])) continue;
    heat[cell] = by === "value" ? Math.max(heat[cell] ?? -Infinity, x) : (heat[cell] || 0) + x;
  }
  const values = Object.values(heat);
  const high = Math.max(...values, 1e-9);
  const low = by === "value" ? Math.min(...values) : 0;
  for (const sq of squares($("board"))) {
    const x = heat[sq.dataset.square];
    const on = x !== undefined && (by === "value" || x > 0);
    const t = high > low ? (x - low) / (high - low) : 1;
    sq.querySelector(".shade").setAttribute("opacity", on ? String(0.15 + 0.5 * t) : "0");
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
    shade(r);
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
      `<tr data-i="${i}"><td>${g.variant}</td><td>${g.first}</td><td>${g.second}</td><td>${g.result}</td>` +
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
  if (ply > 0) highlight($("w-board"), record.cells[ply - 1]);
  $("w-slider").value = ply;
  $("w-ply").textContent = `ply ${ply}/${record.moves.length}: ${move}`;
  const end = ply === record.moves.length ? ` — ${record.result} (${record.termination})` : "";
  const caption = record.captions[ply] ? ` · ${record.captions[ply]}` : "";
  $("w-status").textContent = `${record.first} vs ${record.second}, ${record.variant}${end}${caption}`;
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
$("variant").addEventListener("change", showSides);
$("opponent").addEventListener("input", () => { opponentTyped = true; });
$("variant-id").addEventListener("change", lookUpVariant);
$("model").addEventListener("change", () => showModelLinks("model", "model-links"));
$("analysis-model").addEventListener("change", () => showModelLinks("analysis-model", "analysis-links"));
$("inspect").addEventListener("click", inspect);
$("shade-by").addEventListener("change", () => { if (shaded) shade(shaded); });
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
