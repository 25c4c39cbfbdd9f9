// The piece set: one SVG drawing per role on a 100x100 grid, filled by colour. Every role
// of every variant (Chad's kings and queens are the ordinary king and queen drawings; Duel
// Chess adds the Dabbabah, drawn as a wheeled siege engine). Drawn as plain shapes so that they
// stay crisp at any size and need no image files.

/** @type {Record<string, string>} */
const SHAPES = {
  pawn: `
    <circle cx="50" cy="30" r="12"/>
    <path d="M38 44 h24 l-4 10 l10 24 h-36 l10 -24 z"/>
    <rect x="26" y="78" width="48" height="9" rx="3"/>`,
  rook: `
    <path d="M27 20 h10 v8 h7 v-8 h12 v8 h7 v-8 h10 v18 l-7 6 v26 l6 6 h-44 l6 -6 v-26 l-7 -6 z"/>
    <rect x="22" y="78" width="56" height="9" rx="3"/>`,
  bishop: `
    <circle cx="50" cy="14" r="6"/>
    <path d="M50 20 c-16 12 -20 26 -12 40 h24 c8 -14 4 -28 -12 -40 z"/>
    <path d="M40 64 h20 l6 12 h-32 z"/>
    <rect x="24" y="78" width="52" height="9" rx="3"/>
    <path class="detail" d="M44 36 l14 -10" fill="none" stroke-width="4"/>`,
  knight: `
    <path d="M30 86 c-2 -18 6 -28 16 -36 c-8 2 -14 8 -20 6 c-6 -2 -6 -10 0 -16 c8 -8 14 -18 22 -26 l4 -8 l6 8 c16 6 22 24 20 44 c-1 12 -4 20 -2 28 z"/>
    <circle class="detail" cx="50" cy="30" r="3.5"/>`,
  queen: `
    <circle cx="14" cy="26" r="6"/><circle cx="32" cy="16" r="6"/><circle cx="50" cy="12" r="6"/>
    <circle cx="68" cy="16" r="6"/><circle cx="86" cy="26" r="6"/>
    <path d="M16 32 l14 40 h40 l14 -40 l-16 22 l-2 -36 l-10 34 l-6 -38 l-6 38 l-10 -34 l-2 36 z"/>
    <rect x="24" y="74" width="52" height="13" rx="4"/>`,
  king: `
    <path d="M46 4 h8 v8 h8 v8 h-8 v10 h-8 v-10 h-8 v-8 h8 z"/>
    <path d="M50 32 c-10 -10 -34 -8 -34 10 c0 14 12 22 14 30 h40 c2 -8 14 -16 14 -30 c0 -18 -24 -20 -34 -10 z"/>
    <rect x="24" y="74" width="52" height="13" rx="4"/>`,
  // A siege engine seen from the side, wide and low on two wheels with its ram to the
  // left: no tower and no battlements, so that it never reads as a rook.
  dabbabah: `
    <path d="M22 41 L55 19 L88 41 z"/>
    <rect x="24" y="41" width="62" height="27" rx="3"/>
    <rect x="11" y="49" width="15" height="10"/>
    <path d="M3 54 l11 -11 v22 z"/>
    <circle cx="39" cy="77" r="11"/><circle cx="72" cy="77" r="11"/>
    <circle class="detail" cx="39" cy="77" r="3.5"/><circle class="detail" cx="72" cy="77" r="3.5"/>
    <path class="detail line" d="M38 54 h34" stroke-width="4"/>`,
};

/// The name of each role in accessible names.
/** @type {Record<string, string>} */
export const ROLE_NAMES = {
  pawn: 'pawn', knight: 'knight', bishop: 'bishop', rook: 'rook', queen: 'queen',
  king: 'king', dabbabah: 'dabbabah',
};

/// The SVG markup of a piece, drawn in a 100x100 box at (x, y).
/**
 * @param {string} role
 * @param {string} color
 * @param {number} x
 * @param {number} y
 * @param {number} [size]
 * @returns {string}
 */
export function pieceSvg(role, color, x, y, size = 100) {
  const shape = SHAPES[role] || `<circle cx="50" cy="50" r="30"/><text x="50" y="60" text-anchor="middle" font-size="30">${role[0] || '?'}</text>`;
  const scale = size / 100;
  return `<g class="piece-shape ${color}" data-shape="${SHAPES[role] ? role : 'other'}" transform="translate(${x} ${y}) scale(${scale})">${shape}</g>`;
}
