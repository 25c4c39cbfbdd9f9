// The players' ratings beside their names, and each player's rating change when a rated game
// ends, from the existing APIs: `GET /api/users/{name}` (ratings per variant) and
// `GET /api/users/{name}/ratings/history?variant=…` (the rating after each rated game,
// oldest first). The change is the rating after this game less the one before it (the
// previous entry, or the starting 1500 before the first rated game).
//
// And whose turn it is on the bars: the bar of the side to move is marked (a class the
// stylesheet draws as an outlined panel with an arrow, and the words "to move" for a screen
// reader), in every game, timed or not, since an untimed game has no running clock to say it.

import { api } from '../common.js';

const START_RATING = 1500;
/** @type {Map<string, Promise<any>>} */
const ratings = new Map(); // name -> Promise of the finger answer (or null)

/**
 * @param {string} name
 * @returns {Promise<any>} `GET /api/users/{name}`, or null
 */
function finger(name) {
  if (!ratings.has(name)) {
    ratings.set(name, api(`/api/users/${encodeURIComponent(name)}`).catch(/** @returns {null} */ () => null));
  }
  return ratings.get(name);
}

/// The rating text of `name` in `variant` ("1612", "1500?" while provisional), or '' (a guest,
/// the computer, an unknown name).
/**
 * @param {string | null} name
 * @param {string} variant
 * @returns {Promise<string>}
 */
export async function ratingText(name, variant) {
  if (!name) return '';
  const info = await finger(name);
  // Guests have no rating, and the computer plays unrated games only.
  if (!info || !info.registered || /^computer-level-/i.test(name)) return '';
  const r = (info.ratings || []).find((/** @type {{ variant: string }} */ x) => x.variant === variant);
  // A registered player who has not played this variant rated yet starts at 1500,
  // provisional (`1500?`, as lichess writes it).
  if (!r || r.rating == null) return `${START_RATING}?`;
  return `${Math.round(r.rating)}${r.provisional ? '?' : ''}`;
}

/// Forgets the cached ratings (after a rated game ends they change).
export function forgetRatings() {
  ratings.clear();
}

/// `{before, after, diff}` of `name`'s rating for game `gameId`, or null when the game did not
/// change it (unrated, a guest, not yet written).
/**
 * @param {string | null} name
 * @param {string} variant
 * @param {string} gameId
 * @returns {Promise<{ before: number, after: number, diff: number } | null>}
 */
export async function ratingChange(name, variant, gameId) {
  if (!name) return null;
  let history;
  try {
    history = await api(`/api/users/${encodeURIComponent(name)}/ratings/history?variant=${encodeURIComponent(variant)}`);
  } catch (_) {
    return null;
  }
  const list = (history && history.history) || [];
  const at = list.findIndex((/** @type {{ game_id: string }} */ h) => h.game_id === gameId);
  if (at < 0) return null;
  const after = Math.round(list[at].rating);
  const before = Math.round(at > 0 ? list[at - 1].rating : START_RATING);
  return { before, after, diff: after - before };
}

/// The colour whose bar is marked as to move: the side to move of a game in play, or null
/// (waiting for an opponent, over, or an outcome the rules have reached before the server's
/// end event arrives).
/**
 * @param {{ status: string, rules: { turn: import('../types.js').Color, outcome?: unknown } }} g
 * @returns {import('../types.js').Color | null}
 */
export function sideToMove(g) {
  if (g.status !== 'active' || g.rules.outcome) return null;
  return g.rules.turn;
}

/// Marks one player bar as the side to move, or not: the class draws it, the hidden note
/// inside the name says it in words.
/**
 * @param {HTMLElement} bar
 * @param {HTMLElement} note
 * @param {boolean} toMove
 */
export function markTurn(bar, note, toMove) {
  bar.classList.toggle('to-move', toMove);
  bar.dataset.toMove = String(toMove);
  const words = toMove ? ', to move' : '';
  if (note.textContent !== words) note.textContent = words;
}
