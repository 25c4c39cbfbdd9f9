// The replay's per-move marks (static/marks.js): the win-chance curve, the thresholds of
// `?!`, `?` and `??` for either side, and which moves of a game get none; and the best
// move's arrow (analysis.js bestArrows, board-draw.js arrowPath).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DUEL, MAIN, STATIC } from './fixtures.mjs';

const { clampedCp, moveMark, moveMarks, whiteWinPercent, THRESHOLDS } = await import(new URL('marks.js', STATIC));
const { arrowPath, CELL } = await import(new URL('board-draw.js', STATIC));
const { parseActions } = await import(new URL('board-actions.js', STATIC));

/** @param {number} cp */
const cp = (cp) => ({ cp });
/** @param {ReturnType<typeof moveMark>} mark */
const symbol = (mark) => (mark ? mark.symbol : null);

test('the win chance is even at 0, rises with White\'s score and stays within 0..100', () => {
  assert.equal(whiteWinPercent(cp(0)), 50);
  assert.ok(whiteWinPercent(cp(100)) > 50 && whiteWinPercent(cp(100)) < 60);
  assert.ok(Math.abs(whiteWinPercent(cp(300)) + whiteWinPercent(cp(-300)) - 100) < 1e-9, 'symmetric');
  // Beyond the clamp nothing changes: a mate and a won result count as 1000 centipawns.
  assert.equal(whiteWinPercent(cp(5000)), whiteWinPercent(cp(1000)));
  assert.equal(whiteWinPercent({ mate: 3 }), whiteWinPercent(cp(1000)));
  assert.equal(whiteWinPercent({ mate: -1 }), whiteWinPercent(cp(-1000)));
  assert.equal(whiteWinPercent({ result: '1-0' }), whiteWinPercent(cp(1000)));
  assert.equal(whiteWinPercent({ result: '1/2-1/2' }), 50);
  assert.equal(clampedCp({ result: '0-1' }), -1000);
});

test('a fall of 10, 20 and 30 points of win chance is an inaccuracy, a mistake and a blunder', () => {
  assert.deepEqual(THRESHOLDS.map((t) => [t.symbol, t.drop]), [['??', 30], ['?', 20], ['?!', 10]]);
  // From an even position: the centipawns where each threshold is crossed, for White.
  /** @param {number} points */
  const cpAt = (points) => Math.log(2 / (1 - points / 50) - 1) / -0.00368208;
  for (const [points, expected] of [[10, '?!'], [20, '?'], [30, '??']]) {
    const at = cpAt(points);
    assert.equal(symbol(moveMark(cp(0), cp(Math.floor(at) - 1), 'white')), expected, `${points} points`);
    assert.notEqual(symbol(moveMark(cp(0), cp(Math.ceil(at) + 1), 'white')), expected, `just short of ${points} points`);
  }
  assert.equal(symbol(moveMark(cp(0), cp(-50), 'white')), null, 'half a pawn from even');
  assert.equal(symbol(moveMark(cp(0), cp(-150), 'white')), '?!');
  assert.equal(symbol(moveMark(cp(0), cp(-300), 'white')), '?');
  assert.equal(symbol(moveMark(cp(0), cp(-600), 'white')), '??');
  assert.deepEqual(moveMark(cp(0), cp(-600), 'white'), { symbol: '??', name: 'blunder' });
});

test('Black loses when White\'s score rises, and a score that improves is never marked', () => {
  assert.equal(symbol(moveMark(cp(0), cp(600), 'black')), '??');
  assert.equal(symbol(moveMark(cp(0), cp(150), 'black')), '?!');
  assert.equal(symbol(moveMark(cp(0), cp(-600), 'black')), null);
  assert.equal(symbol(moveMark(cp(-200), cp(600), 'white')), null);
});

test('the same centipawns matter less when the game is already decided', () => {
  // Three pawns at +8 change little; three pawns from even are a mistake.
  assert.equal(symbol(moveMark(cp(800), cp(500), 'white')), null);
  assert.equal(symbol(moveMark(cp(150), cp(-150), 'white')), '?');
  // A forced win kept is no loss; a forced win thrown into a lost position is a blunder.
  assert.equal(symbol(moveMark({ mate: 5 }, { mate: 4 }, 'white')), null);
  assert.equal(symbol(moveMark({ mate: 2 }, { mate: -3 }, 'white')), '??');
});

test('marks of a game: one per ply, none at the start, for unevaluated plies or the engine\'s own move', () => {
  const plies = [
    { score: cp(20), best_machine: 'e2e4' },
    { score: cp(-400), best_machine: 'g8f6' }, // 1. a2a3: White threw four pawns away
    { score: cp(500), best_machine: 'd2d4' }, // 1… g8f6: the engine's own move, though the score jumps
    { score: cp(520), best_machine: 'b8c6' }, // 2. d2d4
    null, // not evaluated yet
    { score: cp(0), best_machine: null },
  ];
  const played = ['a2a3', 'g8f6', 'd2d4', 'b8c6', 'c1g5'];
  const movers = ['white', 'black', 'white', 'black', 'white'];
  assert.deepEqual(moveMarks(plies, played, movers).map(symbol), [null, '??', null, null, null, null]);
  // Black's fall from -400 to +500 is a blunder once the engine preferred another move.
  const other = plies.map((p, i) => (i === 1 ? { score: p.score, best_machine: 'e7e5' } : p));
  assert.deepEqual(moveMarks(other, played, movers).map(symbol), [null, '??', '??', null, null, null]);
});

test('the best move\'s arrow runs between the squares its machine notation names', () => {
  const [action] = parseActions({ boards: [MAIN, DUEL], legal_actions: ['e2e4'] }).board;
  assert.deepEqual([action.board, action.from, action.to], ['main', 'e2', 'e4']);
  const [promotion] = parseActions({ boards: [MAIN], legal_actions: ['a7a8q'] }).board;
  assert.deepEqual([promotion.from, promotion.to], ['a7', 'a8']);
  assert.equal(parseActions({ boards: [MAIN], legal_actions: ['pass'] }).board.length, 0);
  // Straight up from e2 (x 400, y 600) to e4 (y 400): it starts at the first cell's centre and
  // its tip stops short of the other's, at the same x.
  const d = arrowPath([4 * CELL, 6 * CELL], [4 * CELL, 4 * CELL]);
  const points = d.slice(1, -2).split(' L').map((p) => p.split(' ').map(Number));
  assert.equal(points.length, 7);
  const ys = points.map(([, y]) => y);
  assert.equal(Math.max(...ys), 650, 'the base at e2\'s centre');
  assert.equal(Math.min(...ys), 470, 'the tip a fifth of a square short of e4\'s centre');
  assert.deepEqual(points[3], [450, 470]);
  assert.equal(arrowPath([0, 0], [0, 0]), '', 'no arrow onto its own square');
});
