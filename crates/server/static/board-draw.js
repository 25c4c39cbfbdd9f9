// The markup of one board for the board view (board.js): an SVG grid in 100-unit squares,
// drawn from the snapshot alone (crates/rules/src/snapshot.rs).
//
// Accessibility: the SVG is a `grid` whose `row`s are the visual ranks, top first, each
// holding its squares left to right as `gridcell`s named "e4, white knight" or "e4, empty"
// (the hole of a Duel board too: "c4, hole, no square"). The coordinates, highlights and
// piece drawings only repeat what the cells' names say, so they are hidden from assistive
// technology, which also keeps the grid's children rows only (axe's required-children rule).
//
// Davey Drehs pieces carry stats: their life points in a pill at the bottom left, their armor
// in a shield at the top right, ears beside the life and marks at the right edge, all in
// type large enough to read on a phone (26 units: 12 px at the 47-px squares of a 390-px
// screen). Those corners are the ones the coordinates never use (ranks sit at the top left of
// the left file, files at the bottom right of the bottom rank), so no badge covers them.

import { pieceSvg, ROLE_NAMES } from './pieces.js';
import { squareName, squareLabel } from './board-actions.js';
import { esc } from './dom.js';

/** @typedef {import('./types.js').BoardSpec} BoardSpec */
/** @typedef {import('./types.js').PlacedPiece} PlacedPiece */
/** Which colour is at the bottom: `'black'` turns the board round. @typedef {import('./types.js').Color} Orientation */

export const CELL = 100;

/// The accessible and visible name of a board: "Board" when it is the only one.
/**
 * @param {BoardSpec} board
 * @param {number} count how many boards the variant has
 * @returns {string}
 */
export function boardName(board, count) {
  if (board.id === 'main') return count > 1 ? 'Main board' : 'Board';
  return `${board.id[0].toUpperCase()}${board.id.slice(1)} board`;
}

/// Screen position (in board units) of file index f and rank index r.
/**
 * @param {BoardSpec} board
 * @param {number} f
 * @param {number} r
 * @param {Orientation} orientation
 * @returns {[number, number]}
 */
export function cellPos(board, f, r, orientation) {
  const flipped = orientation === 'black';
  const x = flipped ? board.files - 1 - f : f;
  const y = flipped ? r : board.ranks - 1 - r;
  return [x * CELL, y * CELL];
}

/// The (file, rank) indices of the cell shown at column x, row y.
/**
 * @param {BoardSpec} board
 * @param {number} x
 * @param {number} y
 * @param {Orientation} orientation
 * @returns {[number, number]}
 */
export function cellAt(board, x, y, orientation) {
  const flipped = orientation === 'black';
  return [flipped ? board.files - 1 - x : x, flipped ? y : board.ranks - 1 - y];
}

/// What a piece is, for the name of its square: "white knight, 6 of 6 life, armor 6".
/**
 * @param {PlacedPiece} p
 * @returns {string}
 */
export function pieceName(p) {
  const parts = [`${p.color} ${ROLE_NAMES[p.role] || p.role}`];
  if (p.stats) {
    const s = p.stats;
    parts.push(`${s.life} of ${s.max_life} life`, `armor ${s.armor}`);
    if (s.ears) parts.push(`${s.ears} ${s.ears === 1 ? 'ear' : 'ears'}`);
  }
  for (const mark of p.marks || []) parts.push(mark.replace(/_/g, ' '));
  return parts.join(', ');
}

/// The `<svg>` inner markup of a board: rows of cells, then the hidden layers (coordinates,
/// hole marks, highlights, pieces, arrows, targets and the keyboard focus ring), in drawing
/// order.
/**
 * @param {BoardSpec} board
 * @param {PlacedPiece[]} pieces the pieces on this board
 * @param {Orientation} orientation
 * @returns {string}
 */
export function boardMarkup(board, pieces, orientation) {
  const holes = new Set(board.holes);
  /** @type {Map<string, import('./types.js').Zone>} */
  const zoneOf = new Map();
  for (const zone of board.zones || []) for (const sq of zone.squares) zoneOf.set(sq, zone);
  const pieceOn = new Map(pieces.map((p) => [p.square, p]));
  const rows = [];
  const coords = [];
  const holeMarks = [];
  for (let y = 0; y < board.ranks; y++) {
    const cells = [];
    for (let x = 0; x < board.files; x++) {
      const [f, r] = cellAt(board, x, y, orientation);
      const name = squareName(board, f, r);
      const [px, py] = [x * CELL, y * CELL];
      const label = squareLabel(board.id, name);
      if (holes.has(name)) {
        cells.push(`<rect class="hole" data-board="${esc(board.id)}" data-hole="${esc(name)}" x="${px}" y="${py}" width="${CELL}" height="${CELL}" role="gridcell" tabindex="-1" aria-disabled="true" aria-label="${esc(`${label}, hole, no square`)}"/>`);
        holeMarks.push(`<path d="M${px + 24} ${py + 24} L${px + 76} ${py + 76} M${px + 76} ${py + 24} L${px + 24} ${py + 76}"/>`);
        continue;
      }
      const shade = board.checkered ? ((f + r) % 2 === 0 ? 'dark' : 'light') : 'plain';
      const zone = zoneOf.get(name);
      const zoneClass = zone ? ` zone-${esc(zone.kind)} zone-${esc(zone.color || 'none')}` : '';
      const piece = pieceOn.get(name);
      const what = piece ? pieceName(piece) : 'empty';
      const zoneText = zone ? `, ${zone.color ? `${zone.color} ` : ''}${zone.kind}` : '';
      cells.push(`<rect class="sq ${shade}${zoneClass}" data-board="${esc(board.id)}" data-square="${esc(name)}" x="${px}" y="${py}" width="${CELL}" height="${CELL}" role="gridcell" tabindex="-1" aria-label="${esc(`${label}, ${what}${zoneText}`)}"/>`);
      const on = shade === 'plain' ? 'on-plain' : `on-${shade}`;
      if (y === board.ranks - 1) coords.push(`<text class="coord file ${on}" x="${px + CELL - 6}" y="${py + CELL - 7}" text-anchor="end">${esc(board.file_labels[f])}</text>`);
      if (x === 0) coords.push(`<text class="coord rank ${on}" x="${px + 5}" y="${py + 5}" dominant-baseline="hanging">${esc(board.rank_labels[r])}</text>`);
    }
    rows.push(`<g class="rank-row" role="row">${cells.join('')}</g>`);
  }
  const pieceMarks = pieces.map((p) => pieceMarkup(board, p, orientation)).join('');
  return `${rows.join('')}<g class="coords" aria-hidden="true">${coords.join('')}</g>`
    + `<g class="hole-marks" aria-hidden="true">${holeMarks.join('')}</g>`
    + '<g class="marks" aria-hidden="true"></g>'
    + `<g class="pieces" aria-hidden="true">${pieceMarks}</g>`
    + '<g class="arrows" aria-hidden="true"></g>'
    + '<g class="targets" aria-hidden="true"></g><g class="focus-layer" aria-hidden="true"></g>';
}

/// The outline of an arrow from the centre of the cell at `from` to the centre of the cell
/// at `to` (cells' top-left corners, board units), as one closed path: a shaft 16 units
/// wide and a head 44 wide and 36 long, its tip short of the target's centre so the piece
/// there stays readable. One filled shape rather than a line with an SVG marker: a marker
/// needs an id, and a page may draw several boards (ids would clash).
/**
 * @param {[number, number]} from
 * @param {[number, number]} to
 * @returns {string} the path's `d`, or '' when both are the same cell
 */
export function arrowPath(from, to) {
  const [x1, y1] = [from[0] + CELL / 2, from[1] + CELL / 2];
  const [dx, dy] = [to[0] - from[0], to[1] - from[1]];
  const length = Math.hypot(dx, dy);
  if (length === 0) return '';
  const [ux, uy] = [dx / length, dy / length]; // along the arrow
  const [nx, ny] = [-uy, ux]; // across it
  const tip = length - CELL * 0.2;
  const neck = Math.max(0, tip - 36);
  /** @type {[number, number][]} */
  const corners = [[8, 0], [8, neck], [22, neck], [0, tip], [-22, neck], [-8, neck], [-8, 0]];
  const points = corners.map(([across, along]) => `${(x1 + nx * across + ux * along).toFixed(1)} ${(y1 + ny * across + uy * along).toFixed(1)}`);
  return `M${points.join(' L')} Z`;
}

/// The position of a square's cell, or null when the board has no such square.
/**
 * @param {BoardSpec} board
 * @param {string} square
 * @param {Orientation} orientation
 * @returns {[number, number] | null}
 */
export function squarePos(board, square, orientation) {
  for (let f = 0; f < board.files; f++) {
    for (let r = 0; r < board.ranks; r++) {
      if (squareName(board, f, r) === square) return cellPos(board, f, r, orientation);
    }
  }
  return null;
}

/// A piece: its drawing, then its stats and marks.
/**
 * @param {BoardSpec} board
 * @param {PlacedPiece} p
 * @param {Orientation} orientation
 * @returns {string}
 */
export function pieceMarkup(board, p, orientation) {
  const at = squarePos(board, p.square, orientation);
  if (!at) return '';
  const [x, y] = at;
  const marks = p.marks || [];
  // Pieces with stats are drawn smaller, above and between the badges.
  const scale = p.stats ? 70 : 90;
  const left = p.stats ? 15 : 5;
  const top = p.stats ? 3 : 5;
  let extra = p.stats ? statsMarkup(p.stats, x, y) : '';
  // The right edge's middle: free of coordinates and of the stats.
  /** @param {string} text */
  const side = (text) => `<text class="badge" x="${x + 88}" y="${y + 62}" text-anchor="middle">${text}</text>`;
  if (marks.includes('black_necklace')) extra += `<circle class="necklace" cx="${x + 50}" cy="${y + (p.stats ? 40 : 50)}" r="${p.stats ? 30 : 36}"/>`;
  if (marks.includes('dyad')) extra += side('2');
  if (marks.includes('promoted')) extra += side('★');
  if (marks.includes('frozen')) extra += `<rect class="frozen" x="${x + 2}" y="${y + 2}" width="96" height="96" rx="6"/>`;
  if (marks.includes('returned')) extra += `<text class="badge" x="${x + 14}" y="${y + 62}" text-anchor="middle">↩</text>`;
  return `<g class="piece" data-board="${esc(p.board)}" data-square="${esc(p.square)}" data-color="${esc(p.color)}" data-role="${esc(p.role)}">`
    + pieceSvg(p.role, p.color, x + left, y + top, scale) + extra + '</g>';
}

/// Life in a pill coloured by how much is left, armor in a shield, ears in a disc.
/**
 * @param {import('./types.js').PieceStats} s
 * @param {number} x
 * @param {number} y
 * @returns {string}
 */
function statsMarkup(s, x, y) {
  const frac = s.max_life ? Math.max(0, Math.min(1, s.life / s.max_life)) : 0;
  const tone = frac > 0.6 ? 'good' : frac > 0.3 ? 'mid' : 'low';
  const lifeWidth = String(s.life).length > 1 ? 44 : 32;
  let out = `<g class="life ${tone}"><rect x="${x + 3}" y="${y + 71}" width="${lifeWidth}" height="27" rx="8"/>`
    + `<text class="life-text" x="${x + 3 + lifeWidth / 2}" y="${y + 93}" text-anchor="middle">${s.life}</text></g>`
    + `<g class="armor"><path d="M${x + 72} ${y + 3} h26 v14 c0 9 -7 14 -13 17 c-6 -3 -13 -8 -13 -17 z"/>`
    + `<text class="armor-text" x="${x + 85}" y="${y + 24}" text-anchor="middle">${s.armor}</text></g>`;
  if (s.ears > 0) {
    out += `<g class="ears"><circle cx="${x + lifeWidth + 17}" cy="${y + 85}" r="12"/><text x="${x + lifeWidth + 17}" y="${y + 92}" text-anchor="middle">${s.ears}</text></g>`;
  }
  return out;
}

/// A small legend below a board for what its colours mean (Chad's castles and walls) and
/// for its holes; null when the board needs none.
/**
 * @param {BoardSpec} board
 * @returns {HTMLUListElement | null}
 */
export function legendElement(board) {
  /** @type {[string, string][]} */
  const items = [];
  const seen = new Set();
  for (const zone of board.zones || []) {
    const key = `${zone.kind} ${zone.color || 'none'}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const owner = zone.color ? `${zone.color[0].toUpperCase()}${zone.color.slice(1)}'s ` : '';
    items.push([`sq zone-${zone.kind} zone-${zone.color || 'none'}`, `${owner}${zone.kind}`]);
  }
  if ((board.holes || []).length) items.push(['hole', `Hole (${board.holes.join(', ')}): no square`]);
  if (!items.length) return null;
  const list = document.createElement('ul');
  list.className = 'board-legend';
  list.setAttribute('aria-label', `Legend of the ${board.id === 'main' ? 'board' : `${board.id} board`}`);
  for (const [cls, text] of items) {
    const li = document.createElement('li');
    li.innerHTML = `<svg class="swatch" viewBox="0 0 100 100" aria-hidden="true"><rect class="${esc(cls)}" width="100" height="100"/>${cls === 'hole' ? '<path class="hole-x" d="M24 24 L76 76 M76 24 L24 76"/>' : ''}</svg>`;
    li.append(text);
    list.appendChild(li);
  }
  return list;
}
