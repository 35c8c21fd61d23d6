// dtb explorer: draws the position, lists every move with its value from /api/probe, plays moves by
// click, drag or keyboard, keeps a history (back/forward) and the FEN in the URL.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const DEFAULT_FEN = "W:W33,K46:B16,K5";
const $ = (id) => document.getElementById(id);

const state = {
  history: [],      // FENs played through, oldest first
  index: -1,        // the one shown
  position: null,   // the /api/probe answer for it
  selected: null,   // square of the piece chosen by a click, or null
  lastMove: null,   // {from, to} of the move that led here
  drag: null,       // {from, element, startX, startY, moved}
};

// Square s (1-50) -> board column and row (0-9), square 1 at the top, as White sees the board.
function squareXY(s) {
  const row = Math.floor((s - 1) / 5);
  const col = 2 * ((s - 1) % 5) + (row % 2 === 0 ? 1 : 0);
  return { x: col, y: row };
}

function squareAt(x, y) {
  const col = Math.floor(x), row = Math.floor(y);
  if (col < 0 || col > 9 || row < 0 || row > 9 || (col + row) % 2 === 0) return null;
  return row * 5 + Math.floor(col / 2) + 1;
}

function svgPoint(event) {
  const board = $("board");
  const p = board.createSVGPoint();
  p.x = event.clientX;
  p.y = event.clientY;
  return p.matrixTransform(board.getScreenCTM().inverse());
}

function el(name, attributes, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function movesFrom(square) {
  return state.position ? state.position.moves.filter((m) => m.from === square) : [];
}

function drawPiece(board, square, colour, king) {
  const { x, y } = squareXY(square);
  const g = el("g", { class: `piece ${colour}`, "data-square": square, "data-piece": `${colour}-${king ? "king" : "man"}` }, board);
  el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.4, class: `${colour}-piece` }, g);
  el("circle", { cx: x + 0.5, cy: y + 0.5, r: 0.28, class: `${colour}-ring` }, g);
  if (king) {
    const cx = x + 0.5, cy = y + 0.53;
    const crown = [[-0.2, 0.1], [-0.22, -0.12], [-0.1, 0], [0, -0.16], [0.1, 0], [0.22, -0.12], [0.2, 0.1]]
      .map(([dx, dy]) => `${(cx + dx).toFixed(3)},${(cy + dy).toFixed(3)}`).join(" ");
    el("polygon", { points: crown, class: `${colour}-crown` }, g);
  }
  return g;
}

function drawBoard() {
  const board = $("board");
  board.replaceChildren();
  const targets = new Set(state.selected ? movesFrom(state.selected).map((m) => m.to) : []);
  for (let row = 0; row < 10; row++) {
    for (let col = 0; col < 10; col++) {
      const dark = (row + col) % 2 === 1;
      const square = dark ? squareAt(col, row) : null;
      let cls = dark ? "dark" : "light";
      if (square && state.lastMove && (square === state.lastMove.from || square === state.lastMove.to)) cls += " last";
      if (square && square === state.selected) cls += " selected";
      if (square && targets.has(square)) cls += " target";
      const rect = el("rect", { x: col, y: row, width: 1, height: 1, class: cls }, board);
      if (square) {
        rect.setAttribute("data-square", square);
        const number = el("text", { x: col + 0.04, y: row + 0.19, class: "number" }, board);
        number.textContent = square;
      }
    }
  }
  if (!state.position) return;
  const b = state.position.board;
  for (const s of b.white_men) drawPiece(board, s, "white", false);
  for (const s of b.white_kings) drawPiece(board, s, "white", true);
  for (const s of b.black_men) drawPiece(board, s, "black", false);
  for (const s of b.black_kings) drawPiece(board, s, "black", true);
}

function distanceText(dtw) {
  return dtw === null || dtw === undefined ? "" : String(dtw);
}

function valueClass(value) {
  return ["win", "draw", "loss"].includes(value) ? value : "unknown";
}

function showMoves() {
  const list = $("moves");
  list.replaceChildren();
  const p = state.position;
  if (p.moves.length === 0) {
    const li = document.createElement("li");
    li.textContent = "No legal move: the game is over.";
    list.appendChild(li);
  }
  p.moves.forEach((m) => {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = `move ${valueClass(m.value)}`;
    button.dataset.move = m.move;
    button.dataset.value = m.value;
    button.dataset.dtw = distanceText(m.dtw);
    button.title = m.reason ? `${m.value}: ${m.reason}` : `${m.value}, ${distanceText(m.dtw) || "no"} plies to the end after it`;
    const text = document.createElement("span");
    text.className = "move-text";
    text.textContent = m.move;
    const value = document.createElement("span");
    value.textContent = m.dtw === null ? m.value : `${m.value} ${m.dtw}`;
    button.append(text, value);
    button.addEventListener("click", () => play(m));
    li.appendChild(button);
    list.appendChild(li);
  });
}

function showSummary() {
  const p = state.position;
  $("side-to-move").textContent = `${p.side === "white" ? "White" : "Black"} to move:`;
  const value = $("position-value");
  value.textContent = p.value;
  value.className = `value ${valueClass(p.value)}`;
  $("position-dtw").textContent = p.dtw === null ? "" : `in ${p.dtw} plies`;
  const reason = $("reason");
  reason.hidden = !p.reason;
  reason.textContent = p.reason ? `Unknown: ${p.reason}` : "";
  $("back").disabled = state.index <= 0;
  $("forward").disabled = state.index >= state.history.length - 1;
}

function showError(message) {
  const error = $("error");
  error.hidden = !message;
  error.textContent = message || "";
}

async function fetchJson(path, fen) {
  const response = await fetch(`${path}?fen=${encodeURIComponent(fen)}`);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

// Shows history[index]: probes it, redraws everything, puts its FEN in the field and the URL.
async function show(index, lastMove) {
  document.body.dataset.state = "loading";
  const fen = state.history[index];
  try {
    const position = await fetchJson("/api/probe", fen);
    state.index = index;
    state.history[index] = position.fen;
    state.position = position;
    state.selected = null;
    state.lastMove = lastMove || null;
    showError("");
    $("fen").value = position.fen;
    history.replaceState(null, "", `/?fen=${encodeURIComponent(position.fen)}`);
    document.body.dataset.fen = position.fen;
    drawBoard();
    showSummary();
    showMoves();
    $("line").replaceChildren();
  } catch (e) {
    state.history = state.history.slice(0, state.index + 1);  // a refused FEN stays out of the history
    showError(e.message);
  }
  document.body.dataset.state = "ready";
}

function moveOf(fenBefore, fenAfter) {
  // The last move is only known when a move was played from the page; other jumps show none.
  return state.position && state.position.fen === fenBefore
    ? state.position.moves.find((m) => m.fen === fenAfter) || null
    : null;
}

async function goTo(fen) {
  state.history = state.history.slice(0, state.index + 1);
  const move = moveOf(state.history[state.index], fen);
  state.history.push(fen);
  await show(state.history.length - 1, move);
}

async function play(move) {
  await goTo(move.fen);
}

async function back() {
  if (state.index > 0) await show(state.index - 1);
}

async function forward() {
  if (state.index < state.history.length - 1) await show(state.index + 1);
}

// A move from `from` to `to`; when several captures share both squares, the user picks in the list.
function tryPlay(from, to) {
  const moves = movesFrom(from).filter((m) => m.to === to);
  if (moves.length === 1) {
    play(moves[0]);
    return true;
  }
  if (moves.length > 1) {
    showError(`${moves.length} captures go from ${from} to ${to}: choose one in the list of moves.`);
  }
  return false;
}

function onPointerDown(event) {
  if (!state.position) return;
  const { x, y } = svgPoint(event);
  const square = squareAt(x, y);
  if (square === null) return;
  if (movesFrom(square).length > 0) {
    const element = $("board").querySelector(`g.piece[data-square="${square}"]`);
    state.drag = { from: square, element, startX: x, startY: y, moved: false };
    element.classList.add("dragging");
    $("board").setPointerCapture(event.pointerId);
    event.preventDefault();
  } else if (state.selected !== null) {
    if (!tryPlay(state.selected, square)) {
      state.selected = null;
      drawBoard();
    }
  }
}

function onPointerMove(event) {
  const drag = state.drag;
  if (!drag) return;
  const { x, y } = svgPoint(event);
  const dx = x - drag.startX, dy = y - drag.startY;
  if (Math.abs(dx) + Math.abs(dy) > 0.15) drag.moved = true;
  if (drag.moved) {
    drag.element.setAttribute("transform", `translate(${dx.toFixed(3)} ${dy.toFixed(3)})`);
    drag.element.parentNode.appendChild(drag.element);  // on top of the other pieces
  }
}

function onPointerUp(event) {
  const drag = state.drag;
  if (!drag) return;
  state.drag = null;
  const { x, y } = svgPoint(event);
  const square = squareAt(x, y);
  drag.element.classList.remove("dragging");
  drag.element.removeAttribute("transform");
  if (drag.moved && square !== null && square !== drag.from) {
    if (tryPlay(drag.from, square)) return;
  }
  if (!drag.moved) {
    state.selected = state.selected === drag.from ? null : drag.from;
  }
  drawBoard();
}

async function showLine() {
  const list = $("line");
  list.replaceChildren();
  const start = state.index;
  try {
    const answer = await fetchJson("/api/line", state.history[start]);
    if (answer.line.length === 0) {
      const li = document.createElement("li");
      li.textContent = answer.problem ? `No line: ${answer.problem}` : "A draw: no forced end.";
      list.appendChild(li);
    }
    answer.line.forEach((m, i) => {
      const li = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = valueClass(m.value);
      button.dataset.move = m.move;
      button.innerHTML = "";
      const text = document.createElement("span");
      text.className = "move-text";
      text.textContent = m.move;
      const plies = document.createElement("span");
      plies.textContent = distanceText(m.dtw);
      button.append(text, plies);
      button.title = `${m.value} for the side that plays it, ${distanceText(m.dtw)} plies left`;
      // Jumping into the line puts the line up to there in the history, so back walks it.
      button.addEventListener("click", async () => {
        state.history = state.history.slice(0, start + 1).concat(answer.line.slice(0, i + 1).map((l) => l.fen));
        await show(start + i + 1);
      });
      li.appendChild(button);
      list.appendChild(li);
    });
    if (answer.problem && answer.line.length > 0) {
      const li = document.createElement("li");
      li.textContent = `(stops: ${answer.problem})`;
      list.appendChild(li);
    }
  } catch (e) {
    showError(e.message);
  }
}

function onKey(event) {
  if (event.target instanceof HTMLInputElement) return;
  if (event.key === "ArrowLeft") {
    back();
    event.preventDefault();
  } else if (event.key === "ArrowRight") {
    forward();
    event.preventDefault();
  } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    // Up and down walk the moves list.
    const buttons = [...$("moves").querySelectorAll("button")];
    const at = buttons.indexOf(document.activeElement);
    if (buttons.length === 0) return;
    const next = at < 0 ? 0 : Math.max(0, Math.min(buttons.length - 1, at + (event.key === "ArrowDown" ? 1 : -1)));
    buttons[next].focus();
    event.preventDefault();
  }
}

function start() {
  $("fen-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const fen = $("fen").value.trim();
    if (fen) goTo(fen);
  });
  $("back").addEventListener("click", back);
  $("forward").addEventListener("click", forward);
  $("line-button").addEventListener("click", showLine);
  const board = $("board");
  board.addEventListener("pointerdown", onPointerDown);
  board.addEventListener("pointermove", onPointerMove);
  board.addEventListener("pointerup", onPointerUp);
  board.addEventListener("pointercancel", onPointerUp);
  document.addEventListener("keydown", onKey);
  const fen = new URLSearchParams(window.location.search).get("fen") || DEFAULT_FEN;
  state.history = [fen];
  drawBoard();
  show(0);
}

start();
