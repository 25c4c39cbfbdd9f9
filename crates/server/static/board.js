// One board renderer for every variant, driven only by the rules snapshot the server sends
// (`crates/rules/src/snapshot.rs`): the boards with their sizes, labels, holes and zones, the
// pieces with their stats and marks, the last action, check and the legal actions. Input is
// click-click or drag and drop with pointer events (mouse, pen and touch alike), or the
// keyboard: each board is an ARIA grid with one roving tab stop, arrow keys move the focus
// and Enter or Space acts as a click. How legal actions become clicks is in board-actions.js;
// the markup of a board is in board-draw.js.
//
// Beyond playing on one's turn, the view can take a premove (`setPremoveEnabled`): while the
// board is not interactive, the player's own pieces may be picked up and dropped on any square
// of their board, and the page is told (`onPremove`); which legal actions a premove stands for
// once the turn comes is `premoveActions`. A new position that follows the shown one by one
// action slides the moved pieces from where they stood (a Web Animation of the piece group's
// CSS transform): the DOM holds the new position at once, so neither input nor what tests
// read waits for it. A page may also draw arrows on the boards (`setArrows`: the replay's
// engine best move), kept across redraws until it sets others.

import { actionsBetween, parseActions } from './board-actions.js';
import { arrowPath, boardMarkup, boardName, CELL, legendElement, squarePos } from './board-draw.js';
import { ROLE_NAMES } from './pieces.js';

export { parseActions, squareIndex } from './board-actions.js';

/** @typedef {import('./types.js').Snapshot} Snapshot */
/** @typedef {import('./types.js').BoardSpec} BoardSpec */
/** @typedef {import('./types.js').PlacedPiece} PlacedPiece */
/** @typedef {import('./types.js').Color} Color */
/** @typedef {import('./board-actions.js').BoardAction} BoardAction */
/** @typedef {import('./board-actions.js').ParsedActions} ParsedActions */

/**
 * A premove: a piece of the player's to be moved from `from` to `to` once the turn comes.
 * @typedef {{ board: string, from: string, to: string }} Premove
 */

/**
 * A piece that an action moved on its board.
 * @typedef {{ board: string, from: string, to: string }} Moved
 */

/**
 * An arrow drawn on a board from one square to another (`setArrows`); `board` is the board
 * both squares are on, found from the squares' names when not given.
 * @typedef {{ board?: string, from: string, to: string }} Arrow
 */

/**
 * A cell of a board: a square, or a hole.
 * @typedef {{ board: string, square: string }} Cell
 */

/**
 * What the page gives a board view: where the picker and the special actions' buttons go,
 * and what it is told.
 * @typedef {object} BoardOptions
 * @property {HTMLElement} [picker]
 * @property {HTMLElement} [specials]
 * @property {(action: string) => void} [onAction]
 * @property {(premove: Premove) => void} [onPremove]
 * @property {() => void} [onPremoveCancel]
 */

/**
 * A piece being dragged.
 * @typedef {{ from: string, board: string, el: SVGGElement, startX: number, startY: number, moved: boolean }} Drag
 */

const ANIMATION_MS = 150;
/// Squares smaller than this on screen (CSS pixels; Chad's on a phone, about 28-33) are too
/// small for a fingertip to hit for sure (touch guidelines ask 44-48): a tap there only
/// proposes the move, and a second tap on the same square (or Play) plays it. 8x8 boards on a
/// phone have 42 px squares or more and play at the first tap, as on lichess.
const CONFIRM_BELOW_PX = 40;
/// More pieces than this changing place is no single action to animate (a resynchronisation).
const MAX_ANIMATED = 4;

/** @returns {boolean} */
function reducedMotion() {
  return !!window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/// Whether two snapshots show the same position with the same choices.
/**
 * @param {Snapshot} a
 * @param {Snapshot} b
 * @returns {boolean}
 */
function samePosition(a, b) {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/// The pieces an action moved on their board, as {board, from, to}: each piece standing where
/// it did not stand before is matched with a piece of its colour on its board that is gone
/// from where it stood, the same role first and a highlighted square of the action first
/// (so a promotion matches its pawn), never across boards.
/**
 * @param {PlacedPiece[]} before
 * @param {PlacedPiece[]} after
 * @param {import('./types.js').SquareRef[]} [lastSquares] the last action's squares
 * @returns {Moved[]}
 */
export function movedPieces(before, after, lastSquares) {
  /** @param {PlacedPiece | import('./types.js').SquareRef} p */
  const key = (p) => `${p.board} ${p.square}`;
  /** @param {PlacedPiece | undefined} a @param {PlacedPiece} b */
  const same = (a, b) => !!a && !!b && a.color === b.color && a.role === b.role;
  const was = new Map(before.map((p) => [key(p), p]));
  const now = new Map(after.map((p) => [key(p), p]));
  const appeared = after.filter((p) => !same(was.get(key(p)), p));
  const vanished = before.filter((p) => !same(now.get(key(p)), p));
  const marked = new Set((lastSquares || []).map(key));
  /** @type {Moved[]} */
  const moves = [];
  for (const p of appeared) {
    const pool = vanished.filter((q) => q.board === p.board && q.color === p.color);
    const pick = pool.find((q) => q.role === p.role && marked.has(key(q)))
      || pool.find((q) => q.role === p.role)
      || pool.find((q) => marked.has(key(q)));
    if (!pick) continue;
    vanished.splice(vanished.indexOf(pick), 1);
    moves.push({ board: p.board, from: pick.square, to: p.square });
  }
  return moves;
}

/// An interactive view of all the boards of a snapshot.
export class BoardView {
  /// `container`: the element the boards go in. `options.onAction(machine)` is called when
  /// the player picks a complete action; `options.picker` and `options.specials` are elements
  /// for the picker and the special-action buttons; `options.onPremove({board, from, to})`
  /// and `options.onPremoveCancel()` report premoves.
  /**
   * @param {HTMLElement} container
   * @param {BoardOptions} [options]
   */
  constructor(container, options = {}) {
    this.container = container;
    this.options = options;
    /** @type {Color} */
    this.orientation = 'white';
    /** @type {Snapshot | null} */
    this.snapshot = null;
    this.interactive = false;
    /** @type {ParsedActions} */
    this.parsed = null;
    /** @type {string | null} */
    this.selected = null; // the square of the piece picked up
    this.teleport = false; // whether the selected piece's teleports are offered instead of its moves
    /** @type {BoardAction[] | null} */
    this.pending = null; // candidates of an open picker
    /** @type {{ from: string, to: string } | null} */
    this.confirming = null; // a move proposed by a touch on a small square, played by a second tap
    this.touchTap = false; // whether the click being handled came from a finger or a pen
    /** @type {Drag | null} */
    this.drag = null;
    /** @type {Color | null} */
    this.player = null;
    this.premoveEnabled = false;
    /** @type {Premove | null} */
    this.premove = null; // the premove shown
    /** @type {Cell | null} */
    this.focus = null; // the cell holding the tab stop
    this.skipAnimation = false;
    /** @type {Animation[]} */
    this.animations = [];
    /** @type {Moved[]} */
    this.lastAnimation = []; // what the last update slid, for the tests
    /** @type {Map<string, SVGSVGElement>} */
    this.svgs = null;
    /** @type {Arrow[]} */
    this.arrows = [];
    /** @type {number} */
    this.laidOutWidth = undefined;
    // For the browser tests, which find a page's boards from their container: a page may have
    // several (the variant pages' try boards), so they are not one test hook (test-hook.js).
    /** @type {HTMLElement & { boardView?: BoardView }} */ (container).boardView = this;
    window.addEventListener('resize', () => this.layout());
    // The container's width also changes without a window resize (a scrollbar appearing as
    // the page grows): lay out again then, or the board would overflow by the scrollbar.
    if (window.ResizeObserver) {
      new ResizeObserver(() => {
        if (this.container.clientWidth !== this.laidOutWidth) this.layout();
      }).observe(container);
    }
  }

  /** @param {Color} color */
  setOrientation(color) {
    if (color !== this.orientation) this.skipAnimation = true;
    this.orientation = color;
    if (this.snapshot) this.draw();
  }

  flip() {
    this.setOrientation(this.orientation === 'white' ? 'black' : 'white');
  }

  /// Shows a snapshot. `interactive`: whether the viewer may act now. `animate`: whether a
  /// position one action after the shown one slides its moved pieces there.
  /**
   * @param {Snapshot} snapshot
   * @param {boolean} interactive
   * @param {{ animate?: boolean }} [options]
   */
  update(snapshot, interactive, { animate = true } = {}) {
    const before = this.snapshot;
    // The page redraws for many reasons besides a new position (the earlier positions
    // arriving, a reconnection, the game's other news): the same position, as playable as
    // it was, is left as it is, so a piece picked up or being dragged stays in hand.
    if (before && this.interactive === !!interactive && samePosition(before, snapshot)) {
      this.snapshot = snapshot;
      this.skipAnimation = false;
      return;
    }
    const slide = animate && !this.skipAnimation && !!before && !!snapshot.last_action
      && before.variant === snapshot.variant && snapshot.ply === before.ply + 1 && !reducedMotion();
    this.skipAnimation = false;
    this.snapshot = snapshot;
    this.interactive = !!interactive;
    this.parsed = parseActions(snapshot);
    this.selected = null;
    this.teleport = false;
    this.closePicker();
    this.draw();
    this.drawSpecials();
    this.lastAnimation = slide ? this.slide(before) : [];
  }

  /// Whose pieces may be premoved (a colour, or null for none).
  /** @param {Color | null} color */
  setPlayer(color) {
    this.player = color || null;
  }

  /// Whether the player may set a premove while the board is not interactive.
  /** @param {boolean} enabled */
  setPremoveEnabled(enabled) {
    this.premoveEnabled = !!enabled;
    if (!this.premoveEnabled && this.selected && !this.interactive) this.deselect();
  }

  /// Highlights a premove ({board, from, to}), or none.
  /** @param {Premove | null} premove */
  showPremove(premove) {
    this.premove = premove || null;
    if (this.snapshot) this.highlight();
  }

  /// Draws these arrows, and no others, on the boards: they stay through new positions and
  /// redraws until the page sets others (an empty list takes them away).
  /** @param {Arrow[]} arrows */
  setArrows(arrows) {
    this.arrows = arrows || [];
    if (this.snapshot && this.svgs) this.drawArrows();
  }

  /// The arrows' layer of each board. An arrow whose squares are not both on one board of
  /// this position (a Duel placement from the side board) is left out: it has no line to draw.
  drawArrows() {
    for (const [id, svg] of this.svgs) {
      const board = this.boardOf(id);
      const paths = [];
      for (const arrow of this.arrows) {
        const on = arrow.board || this.parsed.index.get(arrow.from);
        if (on !== id || this.parsed.index.get(arrow.to) !== id) continue;
        const from = squarePos(board, arrow.from, this.orientation);
        const to = squarePos(board, arrow.to, this.orientation);
        const d = from && to ? arrowPath(from, to) : '';
        if (d) paths.push(`<path class="arrow" data-board="${id}" data-from="${arrow.from}" data-to="${arrow.to}" d="${d}"/>`);
      }
      svg.querySelector('.arrows').innerHTML = paths.join('');
    }
  }

  /// The legal actions of `rules` from `p.from` to `p.to` on `p.board`, found as a click
  /// finds them, the most ordinary first (a plain move before a teleport, a queen first).
  /**
   * @param {Premove | null} p
   * @param {Snapshot} rules
   * @returns {string[]}
   */
  premoveActions(p, rules) {
    if (!p || !rules) return [];
    return actionsBetween(parseActions(rules), p.from, p.to, p.board).map((a) => a.action);
  }

  draw() {
    const snap = this.snapshot;
    const active = document.activeElement;
    const hadFocus = !!active && this.container.contains(active) && active.getAttribute('role') === 'gridcell';
    this.cancelAnimations();
    this.container.replaceChildren();
    this.svgs = new Map();
    for (const board of snap.boards) {
      const wrap = document.createElement('div');
      wrap.className = `board-wrap board-${board.id}`;
      if (snap.boards.length > 1) {
        const caption = document.createElement('p');
        caption.className = 'board-caption';
        caption.id = `board-caption-${board.id}`;
        caption.textContent = boardName(board, snap.boards.length);
        wrap.appendChild(caption);
      }
      const svg = this.drawBoard(board);
      wrap.appendChild(svg);
      const legend = legendElement(board);
      if (legend) wrap.appendChild(legend);
      this.container.appendChild(wrap);
      this.svgs.set(board.id, svg);
    }
    this.layout();
    this.placeTabStops();
    this.highlight();
    this.drawArrows();
    if (hadFocus) this.focusCell(this.focus, false);
  }

  /// Sizes the boards to the space there is: the main board as large as fits, side boards at
  /// the same square size, beside it or below it, whichever gives larger squares. The page
  /// may tune it with CSS variables on the container: `--board-reserve` (px of the window's
  /// height kept for the rest of the page, 200) and `--board-max-cell` (largest square, px).
  layout() {
    if (!this.snapshot || !this.svgs) return;
    const main = this.snapshot.boards[0];
    const side = this.snapshot.boards.slice(1);
    const style = getComputedStyle(this.container);
    const reserve = parseFloat(style.getPropertyValue('--board-reserve')) || 200;
    const maxCell = parseFloat(style.getPropertyValue('--board-max-cell')) || 110;
    const width = this.container.clientWidth || window.innerWidth;
    this.laidOutWidth = this.container.clientWidth;
    const sideFiles = side.reduce((n, b) => n + b.files, 0);
    const sideRanks = side.reduce((n, b) => Math.max(n, b.ranks), 0);
    // Captions and legends take height too: all of them when stacked, the tallest beside.
    const extras = [...this.container.querySelectorAll('.board-wrap')].map((w) => [...w.children]
      .filter((c) => c.tagName.toLowerCase() !== 'svg').reduce((h, c) => h + /** @type {HTMLElement} */ (c).offsetHeight, 0));
    /** @param {boolean} beside */
    const fit = (beside) => {
      const extra = beside ? Math.max(0, ...extras) : extras.reduce((a, b) => a + b, 0);
      const availH = Math.max(240, window.innerHeight - reserve - extra);
      // Beside: the flex gap (12 px) between boards, and a little room for rounding.
      const availW = beside ? width - 12 * side.length - 4 : width;
      const files = beside ? main.files + sideFiles : Math.max(main.files, sideFiles);
      const rows = beside ? Math.max(main.ranks, sideRanks) : main.ranks + sideRanks;
      return Math.floor(Math.min(availW / files, availH / rows, maxCell));
    };
    const cell = Math.max(18, side.length ? Math.max(fit(true), fit(false)) : fit(false));
    for (const board of this.snapshot.boards) {
      const svg = this.svgs.get(board.id);
      svg.style.width = `${board.files * cell}px`;
      svg.style.height = `${board.ranks * cell}px`;
      // The legend and caption wrap within their board's width.
      svg.parentElement.style.maxWidth = `${board.files * cell}px`;
      // Coordinates stay about 9 px high on small squares (Chad's twelve files on a phone),
      // up to 30% of a square.
      svg.style.setProperty('--coord-size', `${Math.min(30, Math.max(19, 900 / cell)).toFixed(1)}px`);
    }
  }

  /**
   * @param {BoardSpec} board
   * @returns {SVGSVGElement}
   */
  drawBoard(board) {
    const snap = this.snapshot;
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', `0 0 ${board.files * CELL} ${board.ranks * CELL}`);
    svg.setAttribute('class', `board ${board.checkered ? 'checkered' : 'plain'}`);
    svg.setAttribute('role', 'grid');
    if (snap.boards.length > 1) svg.setAttribute('aria-labelledby', `board-caption-${board.id}`);
    else svg.setAttribute('aria-label', boardName(board, 1));
    svg.dataset.board = board.id;
    const pieces = (snap.pieces || []).filter((p) => p.board === board.id);
    svg.innerHTML = boardMarkup(board, pieces, this.orientation);
    svg.addEventListener('pointerdown', (e) => this.onPointerDown(e, board));
    svg.addEventListener('pointermove', (e) => this.onPointerMove(e));
    svg.addEventListener('pointerup', (e) => this.onPointerUp(e));
    svg.addEventListener('pointercancel', () => this.cancelDrag());
    svg.addEventListener('keydown', (e) => this.onKeyDown(e, board));
    svg.addEventListener('focusin', (e) => this.onFocusIn(e, board));
    svg.addEventListener('focusout', () => { svg.querySelector('.focus-layer').replaceChildren(); });
    return svg;
  }

  /**
   * @param {string} id
   * @returns {BoardSpec}
   */
  boardOf(id) {
    return this.snapshot.boards.find((b) => b.id === id);
  }

  /// Redraws highlights: last action, check, premove, selection and legal targets; marks the
  /// selected cell and the targets' names for assistive technology.
  highlight() {
    const snap = this.snapshot;
    const targetSquares = this.shownTargets();
    for (const [id, svg] of this.svgs) {
      const board = this.boardOf(id);
      /** @type {string[]} */
      const marks = [];
      /** @type {string[]} */
      const targets = [];
      /** @param {string} square @param {string} cls */
      const mark = (square, cls) => {
        const at = squarePos(board, square, this.orientation);
        if (at) marks.push(`<rect class="${cls}" x="${at[0]}" y="${at[1]}" width="${CELL}" height="${CELL}"/>`);
      };
      for (const s of snap.last_action?.squares || []) if (s.board === id) mark(s.square, 'last');
      for (const s of snap.check || []) if (s.board === id) mark(s.square, 'check');
      if (this.premove && this.premove.board === id) {
        mark(this.premove.from, 'premove');
        mark(this.premove.to, 'premove');
      }
      if (this.selected && this.parsed.index.get(this.selected) === id) mark(this.selected, 'selected');
      if (this.confirming && this.parsed.index.get(this.confirming.to) === id) mark(this.confirming.to, 'confirm');
      for (const sq of targetSquares) {
        if (this.parsed.index.get(sq) !== id) continue;
        const at = squarePos(board, sq, this.orientation);
        if (!at) continue;
        const occupied = snap.pieces.some((p) => p.board === id && p.square === sq);
        const cls = `${this.pending ? 'pick-target' : 'target'}${this.teleport ? ' teleport' : ''}`;
        targets.push(occupied
          ? `<circle class="${cls} ring" data-board="${id}" data-square="${sq}" cx="${at[0] + 50}" cy="${at[1] + 50}" r="44"/>`
          : `<circle class="${cls} dot" data-board="${id}" data-square="${sq}" cx="${at[0] + 50}" cy="${at[1] + 50}" r="15"/>`);
      }
      svg.querySelector('.marks').innerHTML = marks.join('');
      svg.querySelector('.targets').innerHTML = targets.join('');
      for (const cell of /** @type {NodeListOf<SVGRectElement>} */ (svg.querySelectorAll('rect.sq'))) {
        const square = cell.dataset.square;
        if (!cell.dataset.name) cell.dataset.name = cell.getAttribute('aria-label');
        const target = targetSquares.has(square);
        cell.setAttribute('aria-label', target ? `${cell.dataset.name}, ${this.pending ? 'pick' : 'target'}` : cell.dataset.name);
        cell.setAttribute('aria-selected', String(square === this.selected));
      }
    }
  }

  /// The squares to mark as targets: the picker's squares, or the selected piece's targets.
  /** @returns {Set<string>} */
  shownTargets() {
    const squares = new Set();
    if (this.pending) {
      for (const c of this.pending) squares.add(c.extra.length ? c.extra[c.extra.length - 1] : c.to);
      // The destination itself picks the candidate without extra squares, when there is one.
      if (!this.pending.some((c) => !c.extra.length)) squares.delete(this.pending[0].to);
    } else if (this.selected && this.interactive) {
      for (const sq of this.targetsOf(this.selected)) squares.add(sq);
    }
    return squares;
  }

  drawSpecials() {
    const el = this.options.specials;
    if (!el) return;
    el.replaceChildren();
    if (!this.interactive) return;
    for (const s of this.parsed.special) {
      el.appendChild(this.button('special-action', s.label, () => this.play(s.action), s.action));
    }
    const teleports = this.selected && this.parsed.board.some((a) => a.from === this.selected && a.teleport);
    if (teleports) {
      const piece = this.snapshot.pieces.find((p) => p.square === this.selected);
      const role = piece ? ROLE_NAMES[piece.role] || piece.role : 'piece';
      const toggle = this.button('special-action teleport-toggle', `Teleport the ${role} on ${this.selected} (T)`, () => this.toggleTeleport());
      toggle.dataset.mode = 'teleport';
      toggle.setAttribute('aria-pressed', String(this.teleport));
      toggle.title = 'Teleport to any empty square (the piece keeps 1 life point), then attack from there if you like';
      el.appendChild(toggle);
    }
  }

  /**
   * @param {string} cls
   * @param {string} label
   * @param {() => void} onClick
   * @param {string} [action]
   * @returns {HTMLButtonElement}
   */
  button(cls, label, onClick, action) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = cls;
    if (action) b.dataset.action = action;
    b.textContent = label;
    b.addEventListener('click', onClick);
    return b;
  }

  /// Offers the selected piece's teleports instead of its ordinary moves, or back.
  toggleTeleport() {
    if (!this.selected) return;
    /** @param {boolean} teleport */
    const has = (teleport) => this.parsed.board.some((a) => a.from === this.selected && a.teleport === teleport);
    if (!has(!this.teleport)) return;
    this.teleport = !this.teleport;
    this.closePicker();
    this.highlight();
    this.drawSpecials();
  }

  /** @param {string} square */
  select(square) {
    this.selected = square;
    // A piece with teleports only (its ordinary moves all blocked) starts in teleport mode.
    const plain = this.parsed.board.some((a) => a.from === square && !a.teleport);
    this.teleport = !plain && this.interactive;
    this.highlight();
    this.drawSpecials();
  }

  deselect() {
    this.selected = null;
    this.teleport = false;
    this.highlight();
    this.drawSpecials();
  }

  /**
   * @param {PointerEvent} e
   * @returns {Cell | null}
   */
  squareAt(e) {
    const el = document.elementFromPoint(e.clientX, e.clientY);
    const hit = el && /** @type {SVGElement | null} */ (el.closest('[data-square]'));
    return hit ? { board: hit.dataset.board, square: hit.dataset.square } : null;
  }

  /**
   * @param {string} square
   * @returns {boolean}
   */
  movable(square) {
    return this.interactive && this.parsed.board.some((a) => a.from === square);
  }

  /// Whether a premove may start from `square`: one of the player's own pieces while the
  /// board waits for the other side.
  /**
   * @param {string} square
   * @returns {boolean}
   */
  premovable(square) {
    if (this.interactive || !this.premoveEnabled || !this.player) return false;
    return this.snapshot.pieces.some((p) => p.square === square && p.color === this.player);
  }

  /// A click (or Enter) on a square: what it does depends on what is picked up.
  /**
   * @param {string} boardId
   * @param {string} square
   */
  clickSquare(boardId, square) {
    if (!this.interactive) {
      this.clickPremove(boardId, square);
      return;
    }
    if (this.pending) {
      this.pickSquare(square);
      return;
    }
    const proposed = this.confirming;
    if (proposed) this.closePicker();
    if (this.selected && this.selected !== square && this.targetsOf(this.selected).has(square)) {
      const again = proposed && proposed.from === this.selected && proposed.to === square;
      if (!again && this.touchTap && this.squareSize(boardId) < CONFIRM_BELOW_PX) {
        this.proposeMove(this.selected, square);
        return;
      }
      this.tryMove(this.selected, square);
      return;
    }
    if (this.movable(square)) {
      if (this.selected !== square) this.select(square);
      else if (proposed) this.highlight();
    } else if (this.selected) {
      this.deselect();
    }
  }

  /// A square's size on screen, in CSS pixels.
  /** @param {string} boardId @returns {number} */
  squareSize(boardId) {
    const svg = this.svgs.get(boardId);
    if (!svg) return Infinity;
    const width = svg.viewBox.baseVal.width;
    return width ? (svg.getBoundingClientRect().width * CELL) / width : Infinity;
  }

  /// Marks the move a finger proposed and asks for the second tap (or Play) in the picker.
  /** @param {string} from @param {string} to */
  proposeMove(from, to) {
    this.confirming = { from, to };
    const el = this.options.picker;
    if (el) {
      el.replaceChildren();
      const title = document.createElement('p');
      title.textContent = `Play ${from}–${to}? Tap ${to} again, or:`;
      el.appendChild(title);
      el.appendChild(this.button('confirm-move', 'Play', () => { this.closePicker(); this.tryMove(from, to); }));
      el.appendChild(this.button('cancel', 'Cancel', () => { this.closePicker(); this.highlight(); }));
      el.dataset.confirm = `${from}${to}`;
      el.hidden = false;
    }
    this.highlight();
  }

  /// Premove input: pick up an own piece, drop it on any square of its board.
  /**
   * @param {string} boardId
   * @param {string} square
   */
  clickPremove(boardId, square) {
    if (!this.premoveEnabled || !this.player) return;
    if (this.selected) {
      const from = this.selected;
      if (square === from) { this.deselect(); return; }
      if (this.premovable(square)) { this.select(square); return; }
      this.deselect();
      if (this.parsed.index.get(from) === boardId) this.setPremove({ board: boardId, from, to: square });
      return;
    }
    if (this.premovable(square)) this.select(square);
    else if (this.premove && this.options.onPremoveCancel) this.options.onPremoveCancel();
  }

  /** @param {Premove} p */
  setPremove(p) {
    if (this.options.onPremove) this.options.onPremove(p);
  }

  /**
   * @param {PointerEvent} e
   * @param {BoardSpec} board
   */
  onPointerDown(e, board) {
    const hit = /** @type {SVGElement | null} */ (/** @type {Element} */ (e.target).closest('[data-square]'));
    if (!hit) return;
    const square = hit.dataset.square;
    e.preventDefault();
    this.touchTap = e.pointerType === 'touch' || e.pointerType === 'pen';
    try {
      this.clickSquare(board.id, square);
    } finally {
      this.touchTap = false;
    }
    // A drag starts from the piece just picked up (or already held).
    const picked = this.selected === square && (this.interactive ? !this.pending : this.premoveEnabled);
    if (!picked) return;
    const pieceEl = /** @type {SVGGElement | null} */ (this.svgs.get(board.id).querySelector(`.piece[data-square="${square}"]`));
    if (pieceEl) {
      this.cancelAnimations();
      this.drag = { from: square, board: board.id, el: pieceEl, startX: e.clientX, startY: e.clientY, moved: false };
      try { /** @type {Element} */ (e.currentTarget).setPointerCapture(e.pointerId); } catch (_) { /* not capturable */ }
    }
  }

  /** @param {PointerEvent} e */
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

  /** @param {PointerEvent} e */
  onPointerUp(e) {
    const d = this.drag;
    this.drag = null;
    if (!d) return;
    d.el.removeAttribute('transform');
    d.el.classList.remove('dragging');
    if (!d.moved) return; // a click: the piece stays selected
    const target = this.squareAt(e);
    if (!target || target.square === d.from) return;
    if (!this.interactive) {
      // Not onto another of the player's own pieces: no action takes one's own piece.
      if (this.selected === d.from && target.board === d.board && !this.premovable(target.square)) {
        this.deselect();
        this.setPremove({ board: d.board, from: d.from, to: target.square });
      }
      return;
    }
    if (this.targetsOf(d.from).has(target.square)) this.tryMove(d.from, target.square);
  }

  cancelDrag() {
    if (this.drag) {
      this.drag.el.removeAttribute('transform');
      this.drag.el.classList.remove('dragging');
    }
    this.drag = null;
  }

  /// The squares the selected piece may go to in the mode shown (moves or teleports).
  /**
   * @param {string} from
   * @returns {Set<string>}
   */
  targetsOf(from) {
    return new Set(this.parsed.board.filter((a) => a.from === from && a.teleport === this.teleport).map((a) => a.to));
  }

  /**
   * @param {string} from
   * @param {string} to
   */
  tryMove(from, to) {
    const candidates = actionsBetween(this.parsed, from, to).filter((a) => a.teleport === this.teleport);
    if (candidates.length === 1) {
      this.play(candidates[0].action);
    } else if (candidates.length > 1) {
      this.openPicker(candidates);
    }
  }

  /** @param {BoardAction[]} candidates */
  openPicker(candidates) {
    this.pending = candidates;
    const el = this.options.picker;
    if (el) {
      el.replaceChildren();
      const title = document.createElement('p');
      const squares = candidates.some((c) => c.extra.length);
      title.textContent = squares ? 'Choose a highlighted square, or:' : 'Choose:';
      el.appendChild(title);
      for (const c of candidates) {
        el.appendChild(this.button('pick', c.label, () => this.play(c.action), c.action));
      }
      el.appendChild(this.button('cancel', 'Cancel', () => { this.closePicker(); this.highlight(); }));
      el.hidden = false;
    }
    this.highlight();
  }

  /** @param {string} square */
  pickSquare(square) {
    const chosen = this.pending.filter((c) => (c.extra.length ? c.extra[c.extra.length - 1] : c.to) === square);
    if (chosen.length === 1) this.play(chosen[0].action);
  }

  closePicker() {
    this.pending = null;
    this.confirming = null;
    if (this.options.picker) {
      this.options.picker.hidden = true;
      this.options.picker.replaceChildren();
      delete this.options.picker.dataset.confirm;
    }
  }

  /** @param {string} action */
  play(action) {
    this.selected = null;
    this.teleport = false;
    this.closePicker();
    this.highlight();
    this.drawSpecials();
    if (this.options.onAction) this.options.onAction(action);
  }

  // Keyboard ---------------------------------------------------------------------------------

  /// The cell element of {board, square} (a square or a hole).
  /**
   * @param {Cell | null} at
   * @returns {SVGRectElement | null}
   */
  cellEl(at) {
    const svg = at && this.svgs.get(at.board);
    if (!svg) return null;
    return svg.querySelector(`[role="gridcell"][data-square="${at.square}"], [role="gridcell"][data-hole="${at.square}"]`);
  }

  /// One cell of each board holds the tab stop: the remembered one, else the bottom left.
  placeTabStops() {
    for (const [id, svg] of this.svgs) {
      const remembered = this.focus && this.focus.board === id ? this.cellEl(this.focus) : null;
      const rows = svg.querySelectorAll('.rank-row');
      const cell = remembered || rows[rows.length - 1].firstElementChild;
      cell.setAttribute('tabindex', '0');
    }
  }

  /**
   * @param {Cell} at
   * @param {boolean} [scroll]
   */
  focusCell(at, scroll = true) {
    const cell = this.cellEl(at);
    if (!cell) return;
    const svg = this.svgs.get(at.board);
    for (const other of svg.querySelectorAll('[role="gridcell"][tabindex="0"]')) other.setAttribute('tabindex', '-1');
    cell.setAttribute('tabindex', '0');
    cell.focus({ preventScroll: !scroll });
  }

  /**
   * @param {FocusEvent} e
   * @param {BoardSpec} board
   */
  onFocusIn(e, board) {
    const cell = /** @type {SVGRectElement | null} */ (/** @type {Element} */ (e.target).closest('[role="gridcell"]'));
    if (!cell) return;
    this.focus = { board: board.id, square: cell.dataset.square || cell.dataset.hole };
    const x = cell.x.baseVal.value;
    const y = cell.y.baseVal.value;
    this.svgs.get(board.id).querySelector('.focus-layer').innerHTML = `<rect class="focus-ring" x="${x + 3}" y="${y + 3}" width="${CELL - 6}" height="${CELL - 6}" rx="4"/>`;
  }

  /**
   * @param {KeyboardEvent} e
   * @param {BoardSpec} board
   */
  onKeyDown(e, board) {
    const cell = /** @type {SVGRectElement | null} */ (/** @type {Element} */ (e.target).closest('[role="gridcell"]'));
    if (!cell || e.altKey || e.ctrlKey || e.metaKey) return;
    const svg = this.svgs.get(board.id);
    const rows = [...svg.querySelectorAll('.rank-row')];
    const row = rows.indexOf(cell.parentElement);
    const col = [...cell.parentElement.children].indexOf(cell);
    /** @type {Record<string, [number, number]>} */
    const moves = {
      ArrowLeft: [row, col - 1], ArrowRight: [row, col + 1], ArrowUp: [row - 1, col], ArrowDown: [row + 1, col],
      Home: [row, 0], End: [row, board.files - 1], PageUp: [0, col], PageDown: [board.ranks - 1, col],
    };
    let handled = true;
    if (e.key in moves) {
      const [r, c] = moves[e.key];
      const next = /** @type {SVGRectElement} */ (rows[Math.max(0, Math.min(rows.length - 1, r))].children[Math.max(0, Math.min(board.files - 1, c))]);
      this.focusCell({ board: board.id, square: next.dataset.square || next.dataset.hole });
    } else if (e.key === 'Enter' || e.key === ' ') {
      if (cell.dataset.square) this.clickSquare(board.id, cell.dataset.square);
    } else if (e.key === 'Escape') {
      if (this.pending) { this.closePicker(); this.highlight(); } else if (this.selected) this.deselect();
      else if (this.premove && this.options.onPremoveCancel) this.options.onPremoveCancel();
    } else if (e.key === 't' || e.key === 'T') {
      this.toggleTeleport();
    } else {
      handled = false;
    }
    // The page's own keys (the replay's arrows step through the moves) stay off the board.
    if (handled) {
      e.preventDefault();
      e.stopPropagation();
    }
  }

  // Animation --------------------------------------------------------------------------------

  /// Slides the pieces the last action moved from where `before` had them; returns the moves.
  /**
   * @param {Snapshot} before
   * @returns {Moved[]}
   */
  slide(before) {
    const moves = movedPieces(before.pieces || [], this.snapshot.pieces || [], this.snapshot.last_action.squares);
    if (!moves.length || moves.length > MAX_ANIMATED) return [];
    for (const m of moves) {
      const board = this.boardOf(m.board);
      const svg = this.svgs.get(m.board);
      const el = svg && svg.querySelector(`.piece[data-square="${m.to}"]`);
      const from = board && squarePos(board, m.from, this.orientation);
      const to = board && squarePos(board, m.to, this.orientation);
      if (!el || !from || !to || typeof el.animate !== 'function') continue;
      // While it slides the piece lets clicks through to the squares under it.
      el.classList.add('sliding');
      const animation = el.animate(
        [{ transform: `translate(${from[0] - to[0]}px, ${from[1] - to[1]}px)` }, { transform: 'translate(0px, 0px)' }],
        { duration: ANIMATION_MS, easing: 'ease-out' },
      );
      const done = () => el.classList.remove('sliding');
      animation.addEventListener('finish', done);
      animation.addEventListener('cancel', done);
      this.animations.push(animation);
    }
    return moves;
  }

  cancelAnimations() {
    for (const a of this.animations) a.cancel();
    this.animations = [];
  }
}

