// Captured material beside each player, from the pieces alone (no rules in the client): the
// pieces of each colour missing from the main board, counted against the game's starting
// position when the page knows it (a snapshot before the first move, the `started` event,
// or the stored game's first position). Without it (a dice game joined in the middle, whose
// earlier positions the server keeps secret until the end) it shows the difference between
// the two sides, role by role, as lichess does. Side boards (Duel Chess's) are left out: a
// piece captured there is still in the game.

import { pieceSvg } from '../pieces.js';

const ORDER = ['queen', 'rook', 'bishop', 'knight', 'dabbabah', 'pawn'];

/**
 * @param {import('../types.js').PlacedPiece[]} pieces
 * @returns {Record<string, Map<string, number>>} role counts by colour, on the main board
 */
function counts(pieces) {
  /** @type {Record<string, Map<string, number>>} */
  const by = { white: new Map(), black: new Map() };
  for (const p of pieces || []) {
    if (p.board !== 'main' || !by[p.color]) continue;
    by[p.color].set(p.role, (by[p.color].get(p.role) || 0) + 1);
  }
  return by;
}

/// `{white: [roles taken from black], black: [roles taken from white]}`: what each side has
/// taken, or the surplus each side has over the other when `start` is unknown.
/**
 * @param {import('../types.js').PlacedPiece[] | null} start the starting position's pieces, when known
 * @param {import('../types.js').PlacedPiece[]} pieces
 * @returns {Record<string, string[]>}
 */
export function captured(start, pieces) {
  const now = counts(pieces);
  /** @type {Record<string, string[]>} */
  const taken = { white: [], black: [] };
  if (start) {
    const before = counts(start);
    for (const [color, other] of [['white', 'black'], ['black', 'white']]) {
      for (const [role, n] of before[color]) {
        for (let i = (now[color].get(role) || 0); i < n; i++) taken[other].push(role);
      }
    }
  } else {
    const roles = new Set([...now.white.keys(), ...now.black.keys()]);
    for (const role of roles) {
      const diff = (now.white.get(role) || 0) - (now.black.get(role) || 0);
      for (let i = 0; i < Math.abs(diff); i++) taken[diff > 0 ? 'white' : 'black'].push(role);
    }
  }
  /** @param {string} r */
  const rank = (r) => (ORDER.includes(r) ? ORDER.indexOf(r) : ORDER.length);
  for (const list of Object.values(taken)) list.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return taken;
}

/// Draws the roles into `el`: small pieces of `color`, and their names for screen readers.
/**
 * @param {HTMLElement} el
 * @param {string[]} roles
 * @param {string} color
 */
export function renderCaptured(el, roles, color) {
  const key = `${color}:${roles.join(',')}`;
  if (el.dataset.key === key) return; // unchanged: keep the DOM (this runs on every move)
  el.dataset.key = key;
  el.replaceChildren();
  el.dataset.count = String(roles.length);
  if (!roles.length) return;
  const said = document.createElement('span');
  said.className = 'visually-hidden';
  said.textContent = `Captured: ${roles.map((r) => `${color} ${r}`).join(', ')}`;
  el.appendChild(said);
  const svgNs = 'http://www.w3.org/2000/svg';
  for (const role of roles) {
    const svg = document.createElementNS(svgNs, 'svg');
    svg.setAttribute('viewBox', '0 0 100 100');
    svg.setAttribute('class', 'cap-piece');
    svg.setAttribute('aria-hidden', 'true');
    svg.dataset.role = role;
    // Our own markup from a known role name (pieces.js draws unknown roles as a letter).
    svg.innerHTML = pieceSvg(role.replace(/[^a-z_]/g, ''), color === 'white' ? 'white' : 'black', 0, 0, 100);
    el.appendChild(svg);
  }
}
