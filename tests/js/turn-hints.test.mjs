// The game page's turn marker and the order of its newcomers' hints: which player bar is
// marked as to move, and which hint is on the line with the others behind "more".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATIC } from './fixtures.mjs';

const { sideToMove } = await import(new URL('game/players.js', STATIC));
const { stackHints, moreLabel } = await import(new URL('game/hints.js', STATIC));

test('the side to move is marked only in a game in play', () => {
  assert.equal(sideToMove({ status: 'active', rules: { turn: 'white', outcome: null } }), 'white');
  assert.equal(sideToMove({ status: 'active', rules: { turn: 'black', outcome: null } }), 'black');
  // Waiting for an opponent, over, or ended by the rules before the server says so: no one.
  assert.equal(sideToMove({ status: 'waiting', rules: { turn: 'white', outcome: null } }), null);
  assert.equal(sideToMove({ status: 'finished', rules: { turn: 'black', outcome: null } }), null);
  assert.equal(sideToMove({ status: 'aborted', rules: { turn: 'white', outcome: null } }), null);
  const mate = { winner: 'white', reason: 'checkmate' };
  assert.equal(sideToMove({ status: 'active', rules: { turn: 'black', outcome: mate } }), null);
});

const hint = (id) => ({ id, text: `the ${id} rule` });

test('the newest hint leads, several at once in the variant\'s order', () => {
  const first = stackHints([], [hint('dice_attack'), hint('teleport')]);
  assert.deepEqual(first.map((h) => h.id), ['dice_attack', 'teleport']);
  const then = stackHints(first, [hint('cannon')]);
  assert.deepEqual(then.map((h) => h.id), ['cannon', 'dice_attack', 'teleport']);
  // One already on show comes to the front once, not twice.
  assert.deepEqual(stackHints(then, [hint('teleport')]).map((h) => h.id), ['teleport', 'cannon', 'dice_attack']);
  assert.deepEqual(stackHints([], []), []);
});

test('the disclosure counts the earlier hints', () => {
  assert.equal(moreLabel(1), '1 more hint');
  assert.equal(moreLabel(2), '2 more hints');
});
