// Small, still pictures of a position (the lobby's games in progress, a player's recent games,
// the variant pages' set-ups), drawn from the rules snapshot with the game's own board
// markup (board-draw.js), and the one function that brings a snapshot up to date with an
// action event's `update` (docs/protocol.md, "Applying an action's update"), shared by every
// page that follows a game live.
//
// A mini board is one `<svg role="img">` named by its caption: what it shows is a picture, so
// it has no cells to tab through, and several boards of a variant (Duel's two) sit side by
// side in it, the main board first.

import { CELL, cellAt, pieceMarkup } from './board-draw.js';
import { squareName } from './board-actions.js';
import { esc } from './dom.js';

/// The gap between two boards of one picture, in board units.
const GAP = 40;

/// The rules snapshot after an action: `update` replaces every field it has, and its
/// `removed` and `placed` squares say which pieces changed.
/**
 * @param {import('./types.js').Snapshot} rules
 * @param {import('./types.js').SnapshotUpdate} update
 * @returns {import('./types.js').Snapshot}
 */
export function applyUpdate(rules, update) {
  const { removed, placed, ...fields } = update;
  /** @param {import('./types.js').SquareRef} p */
  const key = (p) => `${p.board} ${p.square}`;
  const replaced = new Set([...removed, ...placed].map(key));
  const pieces = rules.pieces.filter((p) => !replaced.has(key(p))).concat(placed);
  return { ...rules, ...fields, pieces };
}

/// The squares of one board, shaded as the game shows them.
/**
 * @param {import('./types.js').BoardSpec} board
 * @param {import('./types.js').Color} orientation
 * @param {Set<string>} last `board square` of the last action's squares
 * @returns {string}
 */
function squaresMarkup(board, orientation, last) {
  const holes = new Set(board.holes);
  /** @type {Map<string, import('./types.js').Zone>} */
  const zoneOf = new Map();
  for (const zone of board.zones || []) for (const sq of zone.squares) zoneOf.set(sq, zone);
  let out = '';
  for (let y = 0; y < board.ranks; y++) {
    for (let x = 0; x < board.files; x++) {
      const [f, r] = cellAt(board, x, y, orientation);
      const name = squareName(board, f, r);
      const at = `x="${x * CELL}" y="${y * CELL}" width="${CELL}" height="${CELL}"`;
      if (holes.has(name)) {
        out += `<rect class="hole" ${at}/>`;
        continue;
      }
      const shade = board.checkered ? ((f + r) % 2 === 0 ? 'dark' : 'light') : 'plain';
      const zone = zoneOf.get(name);
      const zoneClass = zone ? ` zone-${esc(zone.kind)} zone-${esc(zone.color || 'none')}` : '';
      out += `<rect class="sq ${shade}${zoneClass}" ${at}/>`;
      if (last.has(`${board.id} ${name}`)) out += `<rect class="last" ${at}/>`;
    }
  }
  return out;
}

/// The markup of a picture of `rules` (a rules snapshot): an `<svg role="img">` named
/// `label`, White at the bottom unless `orientation` is `'black'`. Its width follows its
/// container (CSS class `mini-board`); its height follows from the boards' proportions.
/**
 * @param {import('./types.js').Snapshot} rules
 * @param {{ orientation?: import('./types.js').Color, label?: string }} [options]
 * @returns {string}
 */
export function miniBoardSvg(rules, { orientation = 'white', label = 'Board' } = {}) {
  const boards = rules.boards || [];
  const last = new Set(((rules.last_action && rules.last_action.squares) || [])
    .map((s) => `${s.board} ${s.square}`));
  let dx = 0;
  let height = 0;
  let body = '';
  for (const board of boards) {
    const pieces = (rules.pieces || []).filter((p) => p.board === board.id);
    // pieceMarkup places a piece in its own board's units; the group moves it beside the others.
    body += `<g class="${board.checkered ? 'checkered' : 'plain'}" transform="translate(${dx} 0)">`
      + squaresMarkup(board, orientation, last)
      + pieces.map((p) => pieceMarkup(board, p, orientation)).join('')
      + '</g>';
    dx += board.files * CELL + GAP;
    height = Math.max(height, board.ranks * CELL);
  }
  const width = Math.max(0, dx - GAP);
  return `<svg class="mini-board" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(label)}" focusable="false">${body}</svg>`;
}
