// The replay's per-move marks (docs/protocol.md, "Analysis": "Marks"): `?!` an inaccuracy,
// `?` a mistake, `??` a blunder, by how much the mover's chance to win fell with the move.
// Pure functions of the analysis report, so node's tests (tests/js/marks.test.mjs) and the
// browser test (tests/it/browser_marks.rs) can check the thresholds without a page.
//
// Why win chances and not centipawns: a pawn thrown away at +8 changes nothing, at 0 it
// changes the game. The curve is lichess's (`winningChances`), on the same clamped score the
// graph draws, so a mate counts as ±1000 centipawns and a move is never marked for turning a
// forced win into another one.

/**
 * The engine's score of a position, White's view (analysis.js `Score`).
 * @typedef {{ cp: number } | { mate: number } | { result: string }} Score
 */

/**
 * What the marks need of an analysis entry: its score and best action (machine notation).
 * @typedef {{ score: Score, best_machine?: string | null } | null} MarkEntry
 */

/**
 * A mark: its symbol and its name (the move list's class and the screen reader's word).
 * @typedef {{ symbol: string, name: string }} Mark
 */

/// Scores are clamped here, as the graph and the server's drops do.
const CLAMP = 1000;
/// lichess's slope of the win-chance curve, per centipawn.
const SLOPE = 0.00368208;

/// The thresholds, largest first: a fall of at least `drop` points of win chance (0–100).
/** @type {ReadonlyArray<Mark & { drop: number }>} */
export const THRESHOLDS = Object.freeze([
  { symbol: '??', name: 'blunder', drop: 30 },
  { symbol: '?', name: 'mistake', drop: 20 },
  { symbol: '?!', name: 'inaccuracy', drop: 10 },
]);

/// The score in centipawns within ±CLAMP: a mate or a won result at the clamp, a draw 0.
/**
 * @param {Score} score
 * @returns {number}
 */
export function clampedCp(score) {
  if ('result' in score) return score.result === '1-0' ? CLAMP : score.result === '0-1' ? -CLAMP : 0;
  if ('mate' in score) return Math.sign(score.mate) * CLAMP;
  return Math.max(-CLAMP, Math.min(CLAMP, score.cp));
}

/// White's chance to win, 0 to 100 (50 is even).
/**
 * @param {Score} score
 * @returns {number}
 */
export function whiteWinPercent(score) {
  return 50 + 50 * (2 / (1 + Math.exp(-SLOPE * clampedCp(score))) - 1);
}

/// The mark of a move from the position scored `before` to the one scored `after`, played by
/// `mover`; null for a move that lost less than the smallest threshold.
/**
 * @param {Score} before
 * @param {Score} after
 * @param {string} mover `white` or `black`
 * @returns {Mark | null}
 */
export function moveMark(before, after, mover) {
  const fall = whiteWinPercent(before) - whiteWinPercent(after);
  const lost = mover === 'black' ? -fall : fall;
  const found = THRESHOLDS.find((t) => lost >= t.drop);
  return found ? { symbol: found.symbol, name: found.name } : null;
}

/// The marks of a game's moves: `marks[n]` for the move of ply n (`marks[0]` is always
/// null, the start). `plies[n]` is the analysis of the position after ply n, `played[n - 1]`
/// the machine notation of ply n's action and `movers[n - 1]` the side that played it. A move
/// is unmarked while either of its positions is unevaluated, and when it is the engine's own
/// best action (its score may still fall, as the search sees deeper from the next position).
/**
 * @param {MarkEntry[]} plies
 * @param {string[]} played
 * @param {string[]} movers
 * @returns {(Mark | null)[]}
 */
export function moveMarks(plies, played, movers) {
  return plies.map((after, ply) => {
    const before = ply > 0 ? plies[ply - 1] : null;
    if (!before || !after || played[ply - 1] === undefined) return null;
    if (before.best_machine && before.best_machine === played[ply - 1]) return null;
    return moveMark(before.score, after.score, movers[ply - 1]);
  });
}
