// One board renderer for every variant, driven only by the rules snapshot the server sends
// (`crates/rules/src/snapshot.rs`): the boards with their sizes, labels, holes and zones, the pieces
// with their stats and marks, the last action, check and the legal actions. Input is
// click-click or drag and drop with pointer events (mouse, pen and touch alike).
//
// How legal actions become clicks (the machine notation of every variant, docs/rules/*.md):
// - The square tokens of an action are the substrings matching /[a-z][0-9]{1,2}/ that name
//   a square of one of the boards (`e4`, `a10`, Duel squares `x1`..`z3`). The first is the
//   square of the piece that acts, the second its target. Tokens naming no square (a Chazz
//   self-destruct `a1a0`) and actions without two on-board tokens (`pass`, Davey Drehs'
//   `return:c1` and `heal:e1`) are "special": they get buttons of their own.
// - Actions are grouped by (first, second) token. When a group has one action, dropping or
//   clicking on the target plays it. When it has several, a picker opens: their third square
//   tokens (a Duel `@x1` placement, a `>c3` return square, the attack square of a Davey Drehs
//   `g1@d6xe8` teleport) are highlighted on the board to be clicked, and every candidate also
//   has a button, labelled from its separators and suffix: a trailing letter is a promotion
//   (`a7a8q`), `x` an attack, `@` a teleport or placement, `^` a cannon shot, `>` a return,
//   `/` a Davey Drehs pair of pawns the action declares (`e3e4/d4e4`: "pair d4–e4").

import { pieceSvg } from './pieces.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const CELL = 100;
const SQUARE_RE = /[a-z][0-9]{1,2}/g;
const PROMOTION_NAMES = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', k: 'King', d: 'Dabbabah' };

/// Escapes text for HTML and SVG markup.
export function esc(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  })[c]);
}

/// The square name of file index f and rank index r on a board.
function squareName(board, f, r) {
  return board.file_labels[f].toLowerCase() + board.rank_labels[r];
}

/// Map from square name to board id, for every square that exists.
export function squareIndex(boards) {
  const index = new Map();
  for (const board of boards) {
    const holes = new Set(board.holes);
    for (let f = 0; f < board.files; f++) {
      for (let r = 0; r < board.ranks; r++) {
        const name = squareName(board, f, r);
        if (!holes.has(name)) index.set(name, board.id);
      }
    }
  }
  return index;
}

/// Splits legal actions into board actions (with from, to and extra squares) and special
/// actions (buttons). See the comment at the top of this file.
export function parseActions(snapshot) {
  const index = squareIndex(snapshot.boards);
  const board = [];
  const special = [];
  for (const action of snapshot.legal_actions || []) {
    const tokens = [];
    if (!action.includes(':')) {
      for (const m of action.matchAll(SQUARE_RE)) tokens.push({ square: m[0], at: m.index });
    }
    const onBoard = tokens.every((t) => index.has(t.square));
    if (tokens.length < 2 || !onBoard) {
      special.push({ action, label: specialLabel(action, tokens, snapshot) });
      continue;
    }
    const [from, to, ...extra] = tokens;
    const last = extra.length ? extra[extra.length - 1] : to;
    const suffix = action.slice(last.at + last.square.length);
    board.push({
      action,
      from: from.square,
      to: to.square,
      extra: extra.map((t) => t.square),
      suffix,
      label: candidateLabel(action, from, to, extra, suffix, index),
    });
  }
  // A Davey Drehs pawn forming a row of pawns: the plain action beside declared pairings
  // (`e3e4/d4e4`) pairs from the a-file side, and its label says so.
  for (const a of board) {
    const declared = board.some((b) => b.from === a.from && b.to === a.to && b.action.includes('/'));
    if (declared && !a.action.includes('/')) a.label += ', pawns pair from the a-file side';
  }
  return { board, special, index };
}

function specialLabel(action, tokens, snapshot) {
  if (action === 'pass') return 'Pass';
  const [word, square] = action.split(':');
  if (square) {
    const piece = (snapshot.pieces || []).find((p) => p.square === square);
    if (word === 'heal') return `Heal the king on ${square}`;
    if (word === 'return') return `Return the bishop to ${square}`;
    return `${word} ${square}${piece ? '' : ''}`;
  }
  if (tokens.length === 2) return `Self-destruct the pawn on ${tokens[0].square}`;
  return action;
}

function candidateLabel(action, from, to, extra, suffix, index) {
  const between = action.slice(from.at + from.square.length, to.at);
  const parts = [];
  if (between === '@') parts.push(`Teleport to ${to.square}`);
  else if (between === '^') parts.push(`Cannon shot at ${to.square}`);
  else if (between === 'x') parts.push(`Attack ${to.square}`);
  else parts.push(`Move to ${to.square}`);
  let cursor = to.at + to.square.length;
  for (const t of extra) {
    const sep = action.slice(cursor, t.at);
    const board = index.get(t.square);
    const name = board === 'main' ? t.square : t.square.toUpperCase();
    if (sep === '@') parts.push(`place the captured piece on ${name}`);
    else if (sep === '>') parts.push(`return to ${name}`);
    else if (sep === 'x') parts.push(`then attack ${name}`);
    else if (sep === '/') parts.push(`pair ${name}`);
    else if (sep === '' && /^pair \S+$/.test(parts[parts.length - 1])) parts[parts.length - 1] += `–${name}`;
    else parts.push(name);
    cursor = t.at + t.square.length;
  }
  if (suffix) parts.push(`promote to ${PROMOTION_NAMES[suffix.toLowerCase()] || suffix}`);
  return parts.join(', ');
}

/// An interactive view of all the boards of a snapshot.
export class BoardView {
  /// `container`: the element the boards go in. `options.onAction(machine)` is called when
  /// the player picks a complete action; `options.picker` and `options.specials` are elements
  /// for the picker and the special-action buttons.
  constructor(container, options = {}) {
    this.container = container;
    this.options = options;
    this.orientation = 'white';
    this.snapshot = null;
    this.interactive = false;
    this.selected = null;
    this.pending = null; // candidates of an open picker
    this.drag = null;
    window.addEventListener('resize', () => this.layout());
  }

  setOrientation(color) {
    this.orientation = color;
    if (this.snapshot) this.draw();
  }

  flip() {
    this.setOrientation(this.orientation === 'white' ? 'black' : 'white');
  }

  /// Shows a snapshot. `interactive`: whether the viewer may act now.
  update(snapshot, interactive) {
    this.snapshot = snapshot;
    this.interactive = !!interactive;
    this.parsed = parseActions(snapshot);
    this.selected = null;
    this.closePicker();
    this.draw();
    this.drawSpecials();
  }

  draw() {
    const snap = this.snapshot;
    this.container.replaceChildren();
    this.svgs = new Map();
    for (const board of snap.boards) {
      const wrap = document.createElement('div');
      wrap.className = `board-wrap board-${board.id}`;
      const svg = this.drawBoard(board);
      wrap.appendChild(svg);
      this.container.appendChild(wrap);
      this.svgs.set(board.id, svg);
    }
    this.layout();
    this.highlight();
  }

  /// Sizes the boards to the space there is: the main board as large as fits, side boards at
  /// the same square size, beside it on wide screens and below it on narrow ones.
  layout() {
    if (!this.snapshot || !this.svgs) return;
    const main = this.snapshot.boards[0];
    const side = this.snapshot.boards.slice(1);
    const width = this.container.clientWidth || window.innerWidth;
    const sideFiles = side.reduce((n, b) => Math.max(n, b.files), 0);
    const wide = width > 640 && sideFiles > 0;
    const availW = wide ? width - 24 : width;
    const availH = Math.max(240, window.innerHeight - 200);
    // Stacked (narrow screens): the side boards go below, so they share the height.
    const sideRanks = side.reduce((n, b) => Math.max(n, b.ranks), 0);
    const rows = wide ? main.ranks : main.ranks + sideRanks;
    const cell = Math.max(18, Math.floor(Math.min(availW / (main.files + (wide ? sideFiles : 0)), availH / rows, 72)));
    for (const board of this.snapshot.boards) {
      const svg = this.svgs.get(board.id);
      svg.style.width = `${board.files * cell}px`;
      svg.style.height = `${board.ranks * cell}px`;
    }
  }

  /// Screen position (in board units) of a square.
  pos(board, f, r) {
    const flipped = this.orientation === 'black';
    const x = flipped ? board.files - 1 - f : f;
    const y = flipped ? r : board.ranks - 1 - r;
    return [x * CELL, y * CELL];
  }

  drawBoard(board) {
    const snap = this.snapshot;
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', `0 0 ${board.files * CELL} ${board.ranks * CELL}`);
    svg.setAttribute('class', `board ${board.checkered ? 'checkered' : 'plain'}`);
    svg.setAttribute('role', 'grid');
    svg.setAttribute('aria-label', board.id === 'main' ? 'Main board' : `${board.id} board`);
    svg.dataset.board = board.id;
    const holes = new Set(board.holes);
    const zoneOf = new Map();
    for (const zone of board.zones || []) {
      for (const sq of zone.squares) zoneOf.set(sq, zone);
    }
    const squares = [];
    const labels = [];
    for (let f = 0; f < board.files; f++) {
      for (let r = 0; r < board.ranks; r++) {
        const name = squareName(board, f, r);
        const [x, y] = this.pos(board, f, r);
        if (holes.has(name)) {
          squares.push(`<rect class="hole" x="${x}" y="${y}" width="${CELL}" height="${CELL}"/>`);
          continue;
        }
        const dark = board.checkered ? (f + r) % 2 === 0 : false;
        const zone = zoneOf.get(name);
        const zoneClass = zone ? ` zone-${esc(zone.kind)} zone-${esc(zone.color || 'none')}` : '';
        squares.push(`<rect class="sq ${dark ? 'dark' : 'light'}${zoneClass}" data-board="${esc(board.id)}" data-square="${esc(name)}" x="${x}" y="${y}" width="${CELL}" height="${CELL}" role="gridcell" aria-label="${esc(board.id === 'main' ? name : name.toUpperCase())}"/>`);
        const bottom = this.orientation === 'black' ? r === board.ranks - 1 : r === 0;
        const left = this.orientation === 'black' ? f === board.files - 1 : f === 0;
        if (bottom) labels.push(`<text class="coord file" x="${x + CELL - 6}" y="${y + CELL - 6}" text-anchor="end">${esc(board.file_labels[f])}</text>`);
        if (left) labels.push(`<text class="coord rank" x="${x + 5}" y="${y + 20}">${esc(board.rank_labels[r])}</text>`);
      }
    }
    const pieces = (snap.pieces || []).filter((p) => p.board === board.id).map((p) => this.pieceMarkup(board, p));
    svg.innerHTML = `<g class="squares">${squares.join('')}</g><g class="coords">${labels.join('')}</g><g class="marks"></g><g class="pieces">${pieces.join('')}</g><g class="targets"></g>`;
    svg.addEventListener('pointerdown', (e) => this.onPointerDown(e, board));
    svg.addEventListener('pointermove', (e) => this.onPointerMove(e));
    svg.addEventListener('pointerup', (e) => this.onPointerUp(e));
    svg.addEventListener('pointercancel', () => this.cancelDrag());
    return svg;
  }

  coords(board, square) {
    for (let f = 0; f < board.files; f++) {
      for (let r = 0; r < board.ranks; r++) {
        if (squareName(board, f, r) === square) return this.pos(board, f, r);
      }
    }
    return null;
  }

  pieceMarkup(board, p) {
    const at = this.coords(board, p.square);
    if (!at) return '';
    const [x, y] = at;
    const marks = p.marks || [];
    let extra = '';
    if (p.stats) {
      const s = p.stats;
      const frac = s.max_life ? Math.max(0, Math.min(1, s.life / s.max_life)) : 0;
      const tone = frac > 0.6 ? 'good' : frac > 0.3 ? 'mid' : 'low';
      extra += `<rect class="life-bg" x="${x + 8}" y="${y + 88}" width="84" height="9" rx="2"/>`
        + `<rect class="life ${tone}" x="${x + 8}" y="${y + 88}" width="${(84 * frac).toFixed(1)}" height="9" rx="2"/>`
        + `<text class="life-text" x="${x + 50}" y="${y + 96}" text-anchor="middle">${s.life}/${s.max_life}</text>`
        + `<path class="armor" d="M${x + 4} ${y + 4} h22 v12 c0 8 -6 12 -11 15 c-5 -3 -11 -7 -11 -15 z"/>`
        + `<text class="armor-text" x="${x + 15}" y="${y + 20}" text-anchor="middle">${s.armor}</text>`;
      if (s.ears > 0) {
        extra += `<g class="ears"><circle cx="${x + 86}" cy="${y + 12}" r="10"/><text x="${x + 86}" y="${y + 16}" text-anchor="middle">${s.ears}</text></g>`;
      }
    }
    if (marks.includes('black_necklace')) extra += `<circle class="necklace" cx="${x + 50}" cy="${y + 48}" r="33"/>`;
    if (marks.includes('dyad')) extra += `<text class="badge" x="${x + 86}" y="${y + 80}" text-anchor="middle">2</text>`;
    if (marks.includes('frozen')) extra += `<rect class="frozen" x="${x + 2}" y="${y + 2}" width="96" height="96" rx="6"/>`;
    if (marks.includes('returned')) extra += `<text class="badge" x="${x + 12}" y="${y + 80}" text-anchor="middle">↩</text>`;
    if (marks.includes('promoted')) extra += `<text class="badge" x="${x + 88}" y="${y + 80}" text-anchor="middle">★</text>`;
    const stats = p.stats ? `, ${p.stats.life} of ${p.stats.max_life} life, armor ${p.stats.armor}, ${p.stats.ears} ears` : '';
    const marksText = marks.length ? `, ${marks.join(', ')}` : '';
    const scale = p.stats ? 80 : 90;
    const off = (100 - scale) / 2;
    return `<g class="piece" data-board="${esc(p.board)}" data-square="${esc(p.square)}" data-color="${esc(p.color)}" data-role="${esc(p.role)}" aria-label="${esc(`${p.color} ${p.role} on ${p.square}${stats}${marksText}`)}" role="img">`
      + pieceSvg(p.role, p.color, x + off, y + (p.stats ? 2 : off), scale) + extra + '</g>';
  }

  /// Redraws highlights: last action, check, selection and legal targets.
  highlight() {
    const snap = this.snapshot;
    for (const [id, svg] of this.svgs) {
      const board = snap.boards.find((b) => b.id === id);
      const marks = [];
      const targets = [];
      const mark = (square, cls) => {
        const at = this.coords(board, square);
        if (at) marks.push(`<rect class="${cls}" x="${at[0]}" y="${at[1]}" width="${CELL}" height="${CELL}"/>`);
      };
      for (const s of snap.last_action?.squares || []) if (s.board === id) mark(s.square, 'last');
      for (const s of snap.check || []) if (s.board === id) mark(s.square, 'check');
      if (this.selected && this.parsed.index.get(this.selected) === id) mark(this.selected, 'selected');
      const targetSquares = new Set();
      if (this.pending) {
        for (const c of this.pending) for (const sq of c.extra.slice(-1)) targetSquares.add(sq);
      } else if (this.selected) {
        for (const a of this.parsed.board) if (a.from === this.selected) targetSquares.add(a.to);
      }
      for (const sq of targetSquares) {
        if (this.parsed.index.get(sq) !== id) continue;
        const at = this.coords(board, sq);
        if (!at) continue;
        const occupied = snap.pieces.some((p) => p.board === id && p.square === sq);
        const cls = this.pending ? 'pick-target' : 'target';
        targets.push(occupied
          ? `<circle class="${cls} ring" data-board="${id}" data-square="${sq}" cx="${at[0] + 50}" cy="${at[1] + 50}" r="44"/>`
          : `<circle class="${cls} dot" data-board="${id}" data-square="${sq}" cx="${at[0] + 50}" cy="${at[1] + 50}" r="15"/>`);
      }
      svg.querySelector('.marks').innerHTML = marks.join('');
      svg.querySelector('.targets').innerHTML = targets.join('');
    }
  }

  drawSpecials() {
    const el = this.options.specials;
    if (!el) return;
    el.replaceChildren();
    if (!this.interactive) return;
    for (const s of this.parsed.special) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'special-action';
      button.dataset.action = s.action;
      button.textContent = s.label;
      button.setAttribute('aria-label', s.label);
      button.addEventListener('click', () => this.play(s.action));
      el.appendChild(button);
    }
  }

  squareAt(e) {
    const el = document.elementFromPoint(e.clientX, e.clientY);
    const hit = el && el.closest('[data-square]');
    return hit ? { board: hit.dataset.board, square: hit.dataset.square } : null;
  }

  movable(square) {
    return this.interactive && this.parsed.board.some((a) => a.from === square);
  }

  onPointerDown(e, board) {
    const hit = e.target.closest('[data-square]');
    if (!hit) return;
    const square = hit.dataset.square;
    e.preventDefault();
    if (this.pending) {
      this.pickSquare(square);
      return;
    }
    if (this.selected && this.selected !== square && this.targetsOf(this.selected).has(square)) {
      this.tryMove(this.selected, square);
      return;
    }
    if (this.movable(square)) {
      this.selected = square;
      this.highlight();
      const pieceEl = this.svgs.get(board.id).querySelector(`.piece[data-square="${square}"]`);
      if (pieceEl) {
        this.drag = { from: square, board: board.id, el: pieceEl, startX: e.clientX, startY: e.clientY, moved: false };
        try { e.currentTarget.setPointerCapture(e.pointerId); } catch (_) { /* not capturable */ }
      }
    } else {
      this.selected = null;
      this.highlight();
    }
  }

  onPointerMove(e) {
    const d = this.drag;
    if (!d) return;
    const dx = e.clientX - d.startX;
    const dy = e.clientY - d.startY;
    if (!d.moved && Math.hypot(dx, dy) < 4) return;
    d.moved = true;
    const svg = this.svgs.get(d.board);
    const rect = svg.getBoundingClientRect();
    const scale = svg.viewBox.baseVal.width / rect.width;
    d.el.setAttribute('transform', `translate(${dx * scale} ${dy * scale})`);
    d.el.classList.add('dragging');
  }

  onPointerUp(e) {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    d.el.removeAttribute('transform');
    d.el.classList.remove('dragging');
    if (!d.moved) return; // a click: the piece stays selected
    const target = this.squareAt(e);
    if (target && target.square !== d.from && this.targetsOf(d.from).has(target.square)) {
      this.tryMove(d.from, target.square);
    }
  }

  cancelDrag() {
    if (this.drag) {
      this.drag.el.removeAttribute('transform');
      this.drag.el.classList.remove('dragging');
    }
    this.drag = null;
  }

  targetsOf(from) {
    return new Set(this.parsed.board.filter((a) => a.from === from).map((a) => a.to));
  }

  tryMove(from, to) {
    const candidates = this.parsed.board.filter((a) => a.from === from && a.to === to);
    if (candidates.length === 1) {
      this.play(candidates[0].action);
    } else if (candidates.length > 1) {
      this.openPicker(candidates);
    }
  }

  openPicker(candidates) {
    this.pending = candidates;
    const el = this.options.picker;
    if (el) {
      el.replaceChildren();
      const title = document.createElement('p');
      const squares = candidates.every((c) => c.extra.length);
      title.textContent = squares ? 'Choose a highlighted square, or:' : 'Choose:';
      el.appendChild(title);
      for (const c of candidates) {
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'pick';
        b.dataset.action = c.action;
        b.textContent = c.label;
        b.setAttribute('aria-label', c.label);
        b.addEventListener('click', () => this.play(c.action));
        el.appendChild(b);
      }
      const cancel = document.createElement('button');
      cancel.type = 'button';
      cancel.textContent = 'Cancel';
      cancel.className = 'cancel';
      cancel.addEventListener('click', () => { this.closePicker(); this.highlight(); });
      el.appendChild(cancel);
      el.hidden = false;
    }
    this.highlight();
  }

  pickSquare(square) {
    const chosen = this.pending.filter((c) => c.extra[c.extra.length - 1] === square);
    if (chosen.length === 1) this.play(chosen[0].action);
  }

  closePicker() {
    this.pending = null;
    if (this.options.picker) {
      this.options.picker.hidden = true;
      this.options.picker.replaceChildren();
    }
  }

  play(action) {
    this.selected = null;
    this.closePicker();
    this.highlight();
    if (this.options.onAction) this.options.onAction(action);
  }
}
