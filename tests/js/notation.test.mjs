// Actions from clicks: how the board reads the machine notation of the legal actions into
// from/to squares, pickers and buttons (the rules at the top of static/board-actions.js).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DUEL, MAIN, STATIC, WIDE, snapshot } from './fixtures.mjs';

const { parseActions, actionsBetween } = await import(new URL('board-actions.js', STATIC));

test('an ordinary move goes from its first square to its second', () => {
  const parsed = parseActions(snapshot([MAIN], ['e2e4', 'g1f3']));
  assert.equal(parsed.special.length, 0);
  const [e4] = parsed.board;
  assert.deepEqual([e4.board, e4.from, e4.to, e4.extra, e4.suffix, e4.teleport], ['main', 'e2', 'e4', [], '', false]);
  assert.equal(e4.label, 'Move to e4');
});

test('two-digit ranks are one square', () => {
  const [a] = parseActions(snapshot([WIDE], ['a10a12'])).board;
  assert.deepEqual([a.from, a.to], ['a10', 'a12']);
});

test('pass, heal, return and an off-board step are buttons', () => {
  const parsed = parseActions(snapshot([MAIN], ['pass', 'heal:e1', 'return:c1', 'a1a0']));
  assert.equal(parsed.board.length, 0);
  assert.deepEqual(parsed.special.map((s) => s.label), [
    'Pass', 'Heal the king on e1', 'Return the bishop to c1', 'Self-destruct the pawn on a1',
  ]);
});

test('promotions are one target with a picker, a queen first', () => {
  const parsed = parseActions(snapshot([MAIN], ['a7a8n', 'a7a8q', 'a7a8r', 'a7a8b']));
  const between = actionsBetween(parsed, 'a7', 'a8');
  assert.deepEqual(between.map((a) => a.action), ['a7a8q', 'a7a8r', 'a7a8b', 'a7a8n']);
  assert.equal(between[0].label, 'Move to a8, promote to Queen');
});

test('a Duel capture places the piece taken on the side board', () => {
  const parsed = parseActions(snapshot([MAIN, DUEL], ['d4e5@x1', 'd4e5@z3']));
  const [first] = parsed.board;
  assert.deepEqual([first.from, first.to, first.extra], ['d4', 'e5', ['x1']]);
  assert.equal(first.label, 'Move to e5, place the captured piece on X1');
});

test('teleports are told apart, and come after the plain moves', () => {
  const parsed = parseActions(snapshot([MAIN], ['g1@e2', 'g1e2']));
  assert.deepEqual(parsed.board.map((a) => a.teleport), [true, false]);
  assert.deepEqual(actionsBetween(parsed, 'g1', 'e2').map((a) => a.action), ['g1e2', 'g1@e2']);
  assert.equal(parsed.board[0].label, 'Teleport to e2');
});

test('attacks, cannon shots and declared pawn pairs have their own words', () => {
  const parsed = parseActions(snapshot([MAIN], ['d1xd7', 'a1^a5', 'e3e4/d4e4', 'e3e4']));
  const label = (action) => parsed.board.find((a) => a.action === action).label;
  assert.equal(label('d1xd7'), 'Attack d7');
  assert.equal(label('a1^a5'), 'Cannon shot at a5');
  assert.equal(label('e3e4/d4e4'), 'Move to e4, pair d4–e4');
  assert.equal(label('e3e4'), 'Move to e4, pawns pair from the a-file side');
});

test('actionsBetween keeps to the board asked for', () => {
  const parsed = parseActions(snapshot([MAIN, DUEL], ['e2e4', 'x1x2']));
  assert.equal(actionsBetween(parsed, 'x1', 'x2', 'duel').length, 1);
  assert.equal(actionsBetween(parsed, 'x1', 'x2', 'main').length, 0);
});
