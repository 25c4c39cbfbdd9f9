// The replay page's analysis panel: asks the server to analyse the finished game
// (`GET /api/games/{id}/analysis`, docs/protocol.md "Analysis") and polls it about once a
// second until done, drawing the engine's score after every ply as a small SVG graph (White's
// view, clamped at ±10 pawns, a mate at the clamp), the best line at the ply shown, and the
// moves where the score fell most for the side that played them. Clicking the graph or a
// listed move jumps there; the graph is also a keyboard slider over the plies. While the
// panel is open, the board shows the engine's best action at the ply shown as an arrow, and
// the move list marks inaccuracies, mistakes and blunders (marks.js, thresholds in
// docs/protocol.md "Analysis"); closing the panel takes both away with the rest of the help.

import { parseActions } from './board-actions.js';
import { api } from './common.js';
import { moveMarks } from './marks.js';

/**
 * The engine's score of a position, from White's side: centipawns, a mate in so many moves
 * (negative: Black mates), or the result where the game ended.
 * @typedef {{ cp: number } | { mate: number } | { result: string }} Score
 */

/**
 * A ply of the analysis report: null until it is evaluated. `best_machine` is `best` in
 * machine notation, which the board's arrow is read from.
 * @typedef {{ score: Score, depth: number, pv: string[], best: string | null, best_machine: string | null } | null} PlyEntry
 */

/**
 * A move where the score fell most for the side that played it.
 * @typedef {{ ply: number, side: string, played: string, best: string | null, loss: number, after: number }} Drop
 */

/**
 * `GET /api/games/{id}/analysis`.
 * @typedef {{ status: string, analysed: number, nodes_per_position: number, plies: PlyEntry[], drops: Drop[] }} Report
 */

/**
 * The game the panel is about, as the replay page holds it: its board view, its positions
 * (start first), its actions and the move list they are shown in.
 * @typedef {{ board: import('./board.js').BoardView, snapshots: import('./types.js').Snapshot[], moves: import('./types.js').MoveView[], list: HTMLElement }} PanelGame
 */

/**
 * The panel's nodes in the replay page.
 * @typedef {{ section: HTMLElement, button: HTMLButtonElement, body: HTMLElement, status: HTMLElement, graph: HTMLElement, line: HTMLElement, drops: HTMLElement }} PanelElements
 */

const CLAMP = 1000;
const WIDTH = 300;
const HEIGHT = 100;
const PAD = 4;
const POLL_MS = 1000;
const BUSY_MS = 3000;
const SVG = 'http://www.w3.org/2000/svg';

/// "+0.35", "-1.20", "#3" (White mates in 3), "#-2", or the result where the game ended.
/**
 * @param {Score | null} score
 * @returns {string}
 */
export function scoreText(score) {
  if (!score) return '…';
  if ('result' in score) return score.result;
  if ('mate' in score) return `#${score.mate}`;
  const pawns = score.cp / 100;
  return `${pawns > 0 ? '+' : ''}${pawns.toFixed(2)}`;
}

/// The score as the graph draws it, in centipawns within ±CLAMP.
/**
 * @param {Score} score
 * @returns {number}
 */
function clamped(score) {
  if ('result' in score) return score.result === '1-0' ? CLAMP : score.result === '0-1' ? -CLAMP : 0;
  if ('mate' in score) return Math.sign(score.mate) * CLAMP;
  return Math.max(-CLAMP, Math.min(CLAMP, score.cp));
}

/**
 * @param {string} name
 * @param {Record<string, string | number>} attributes
 * @returns {SVGElement}
 */
function svgElement(name, attributes) {
  const el = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) el.setAttribute(key, String(value));
  return el;
}

/// The arrow of an action in machine notation on `snapshot`'s boards, read as the board reads
/// a click's action; none for an action without two squares (a pass) or no action at all.
/**
 * @param {import('./types.js').Snapshot} snapshot
 * @param {string | null} machine
 * @returns {{ board: string, from: string, to: string }[]}
 */
export function bestArrows(snapshot, machine) {
  if (!snapshot || !machine) return [];
  const [action] = parseActions({ boards: snapshot.boards, legal_actions: [machine] }).board;
  return action ? [{ board: action.board, from: action.from, to: action.to }] : [];
}

/// Marks each move of `list` (the replay's move list, `.move[data-ply]` buttons) with its
/// mark, after taking away the marks of an earlier call: the panel marks the same list again
/// on every poll, and the list is not redrawn for it (a focused move keeps its focus).
/**
 * @param {HTMLElement} list
 * @param {(import('./marks.js').Mark | null)[]} marks by ply
 */
function markMoves(list, marks) {
  for (const old of list.querySelectorAll('.move-mark')) old.remove();
  for (const move of /** @type {NodeListOf<HTMLElement>} */ (list.querySelectorAll('.move[data-ply]'))) {
    const label = move.getAttribute('aria-label');
    if (label && move.dataset.label === undefined) move.dataset.label = label;
    const mark = marks[Number(move.dataset.ply)];
    delete move.dataset.mark;
    if (move.dataset.label !== undefined) move.setAttribute('aria-label', move.dataset.label);
    if (!mark) continue;
    const span = document.createElement('span');
    span.className = `move-mark ${mark.name}`;
    span.textContent = mark.symbol;
    span.title = mark.name;
    move.appendChild(span);
    move.dataset.mark = mark.symbol;
    if (move.dataset.label !== undefined) move.setAttribute('aria-label', `${move.dataset.label}, ${mark.name}`);
  }
}

/// The panel. `elements` are the page's nodes, `jump(ply)` shows a ply, `game` what the page
/// shows of the game (its positions are the plies: its actions plus the start).
/**
 * @param {string} gameId
 * @param {PanelElements} elements
 * @param {(ply: number) => void} jump
 * @param {PanelGame} game
 * @returns {{ show(ply: number): void, report(): Report | null }}
 */
export function analysisPanel(gameId, elements, jump, game) {
  /** @type {{ report: Report | null, ply: number, timer: ReturnType<typeof setTimeout> | null }} */
  const panel = { report: null, ply: 0, timer: null };
  const { section, button, body, status, graph, line, drops } = elements;
  const plies = game.snapshots.length;
  /** @param {number} ply */
  const x = (ply) => PAD + (plies > 1 ? (ply * (WIDTH - 2 * PAD)) / (plies - 1) : 0);
  /** @param {number} cp */
  const y = (cp) => HEIGHT / 2 - (cp / CLAMP) * (HEIGHT / 2 - PAD);

  // One SVG for the panel's life, its contents redrawn: it keeps the keyboard focus.
  const svg = svgElement('svg', {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'score-graph', role: 'slider', tabindex: 0,
    'aria-label': 'Engine score after each ply, White up and Black down: click, or use the arrow keys, to go to a ply',
    'aria-valuemin': 0, 'aria-valuemax': Math.max(0, plies - 1),
  });
  svg.addEventListener('click', (event) => {
    const box = svg.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * WIDTH;
    jump(Math.round(((at - PAD) / (WIDTH - 2 * PAD)) * (plies - 1)));
  });
  graph.replaceChildren(svg);

  function drawGraph() {
    const shapes = [
      svgElement('rect', { x: 0, y: 0, width: WIDTH, height: HEIGHT, class: 'graph-bg' }),
      svgElement('line', { x1: 0, x2: WIDTH, y1: HEIGHT / 2, y2: HEIGHT / 2, class: 'graph-mid' }),
    ];
    for (const [text, at] of /** @type {[string, number][]} */ ([['White +10', PAD + 8], ['Black +10', HEIGHT - PAD - 2]])) {
      const label = svgElement('text', { x: PAD + 2, y: at, class: 'axis', 'aria-hidden': 'true' });
      label.textContent = text;
      shapes.push(label);
    }
    const entries = panel.report ? panel.report.plies : [];
    // One polyline per run of evaluated plies: a gap is left where a ply is not known yet.
    /** @type {string[]} */
    let run = [];
    const flush = () => {
      if (run.length > 1) shapes.push(svgElement('polyline', { points: run.join(' '), class: 'graph-line' }));
      run = [];
    };
    /** @type {SVGElement[]} */
    const dots = [];
    entries.forEach((entry, ply) => {
      if (!entry) { flush(); return; }
      const [px, py] = [x(ply).toFixed(1), y(clamped(entry.score)).toFixed(1)];
      run.push(`${px},${py}`);
      dots.push(svgElement('circle', { cx: px, cy: py, r: 1.6, class: 'graph-point' }));
    });
    flush();
    shapes.push(...dots);
    for (const drop of panel.report ? panel.report.drops : []) {
      shapes.push(svgElement('circle', { cx: x(drop.ply), cy: y(drop.after), r: 3.2, class: `graph-drop ${drop.side}` }));
    }
    shapes.push(svgElement('line', { x1: x(panel.ply), x2: x(panel.ply), y1: 0, y2: HEIGHT, class: 'graph-cursor' }));
    svg.replaceChildren(...shapes);
    const here = entries[panel.ply];
    svg.setAttribute('aria-valuenow', String(panel.ply));
    svg.setAttribute('aria-valuetext', `Ply ${panel.ply}: ${here ? scoreText(here.score) : 'not evaluated yet'}`);
    graph.dataset.points = String(dots.length);
  }

  function drawLine() {
    const entry = panel.report && panel.report.plies[panel.ply];
    if (!panel.report) { line.textContent = ''; return; }
    if (!entry) { line.textContent = `Ply ${panel.ply}: not evaluated yet.`; delete line.dataset.best; return; }
    if ('result' in entry.score) { line.textContent = `Ply ${panel.ply}: the game is over (${entry.score.result}).`; return; }
    line.textContent = `Ply ${panel.ply}: ${scoreText(entry.score)} (depth ${entry.depth}). Best line: ${entry.pv.join(' ') || entry.best || '–'}`;
    line.dataset.best = entry.best || '';
  }

  function drawDrops() {
    drops.replaceChildren();
    for (const drop of panel.report ? panel.report.drops : []) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'drop';
      b.dataset.ply = String(drop.ply);
      const side = drop.side === 'white' ? 'White' : 'Black';
      b.textContent = `Ply ${drop.ply}, ${side} ${drop.played}: −${(drop.loss / 100).toFixed(2)}${drop.best ? ` (best ${drop.best})` : ''}`;
      b.setAttribute('aria-label', `Go to ply ${drop.ply}: ${side} played ${drop.played} and lost ${(drop.loss / 100).toFixed(2)} pawns${drop.best ? `; the engine preferred ${drop.best}` : ''}`);
      b.addEventListener('click', () => jump(drop.ply));
      li.appendChild(b);
      drops.appendChild(li);
    }
  }

  /// The board's arrow and the move list's marks: only while the panel is open, as the rest.
  function drawBoardHelp() {
    const open = !body.hidden && !!panel.report;
    const entry = open ? panel.report.plies[panel.ply] : null;
    game.board.setArrows(entry ? bestArrows(game.snapshots[panel.ply], entry.best_machine) : []);
    const marks = open
      ? moveMarks(panel.report.plies, game.moves.map((m) => m.machine), game.snapshots.slice(0, -1).map((s) => s.turn))
      : [];
    markMoves(game.list, marks);
  }

  function draw() {
    drawGraph();
    drawLine();
    drawDrops();
    drawBoardHelp();
  }

  async function poll() {
    panel.timer = null;
    let report;
    try {
      report = await api(`/api/games/${gameId}/analysis`);
    } catch (e) {
      status.textContent = e.code === 'game_in_progress' ? 'The game is not over: it can be analysed once it ends.' : e.message;
      section.dataset.status = 'error';
      button.disabled = false;
      return;
    }
    panel.report = report;
    section.dataset.status = report.status;
    const counted = `${report.analysed} of ${report.plies.length} positions`;
    status.textContent = /** @type {Record<string, string>} */ ({
      running: `Analysing… ${counted}.`,
      done: `Analysed: ${counted} (${report.nodes_per_position.toLocaleString()} nodes each).`,
      busy: `The server is busy analysing other games; ${counted} so far. Trying again…`,
    })[report.status] || report.status;
    draw();
    if (report.status !== 'done') panel.timer = setTimeout(poll, report.status === 'busy' ? BUSY_MS : POLL_MS);
  }

  button.addEventListener('click', () => {
    const open = body.hidden;
    body.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    button.textContent = open ? 'Hide the analysis' : 'Show the engine analysis';
    drawBoardHelp();
    if (open && !panel.report && !panel.timer) {
      button.disabled = true;
      status.textContent = 'Starting the analysis…';
      draw();
      poll().finally(() => { button.disabled = false; });
    }
  });

  return {
    /// The replay now shows `ply`.
    /** @param {number} ply */
    show(ply) {
      panel.ply = ply;
      if (!body.hidden) draw();
      else drawBoardHelp();
    },
    /// What the server last answered, for the browser tests (replay.js shows its state).
    report() {
      return panel.report;
    },
  };
}
