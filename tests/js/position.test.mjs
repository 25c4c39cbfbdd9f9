// What the scripts work out from positions: an action's update applied, the pieces an
// action moved (the board's slide), captured material, newcomers' hints, and the dice.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAIN, STATIC, snapshot } from './fixtures.mjs';

const { applyUpdate } = await import(new URL('miniboard.js', STATIC));
const { movedPieces } = await import(new URL('board.js', STATIC));
const { captured } = await import(new URL('game/material.js', STATIC));
const { hintsFor } = await import(new URL('game/hints.js', STATIC));
const dice = await import(new URL('dice-verify.js', STATIC));

const piece = (square, color, role, board = 'main') => ({ board, square, color, role });

test('an update replaces its fields and the pieces on its squares', () => {
  const before = snapshot([MAIN], ['e2e4'], [piece('e2', 'white', 'pawn'), piece('e7', 'black', 'pawn')]);
  const after = applyUpdate(before, {
    turn: 'black', ply: 1, legal_actions: ['e7e5'],
    removed: [{ board: 'main', square: 'e2' }], placed: [piece('e4', 'white', 'pawn')],
  });
  assert.equal(after.turn, 'black');
  assert.deepEqual(after.legal_actions, ['e7e5']);
  assert.deepEqual(after.pieces.map((p) => p.square).sort(), ['e4', 'e7']);
  assert.equal(after.boards, before.boards);
  assert.deepEqual(before.pieces.map((p) => p.square), ['e2', 'e7'], 'the snapshot before is left as it was');
});

test('a capture moves one piece; castling moves two', () => {
  const capture = movedPieces(
    [piece('e4', 'white', 'pawn'), piece('d5', 'black', 'pawn')],
    [piece('d5', 'white', 'pawn')],
  );
  assert.deepEqual(capture, [{ board: 'main', from: 'e4', to: 'd5' }]);
  const castle = movedPieces(
    [piece('e1', 'white', 'king'), piece('h1', 'white', 'rook')],
    [piece('g1', 'white', 'king'), piece('f1', 'white', 'rook')],
  );
  assert.deepEqual(castle, [{ board: 'main', from: 'e1', to: 'g1' }, { board: 'main', from: 'h1', to: 'f1' }]);
});

test('a promotion slides its pawn, found by the highlighted squares', () => {
  const moved = movedPieces(
    [piece('a7', 'white', 'pawn'), piece('b7', 'white', 'pawn')],
    [piece('a8', 'white', 'queen'), piece('b7', 'white', 'pawn')],
    [{ board: 'main', square: 'a7' }, { board: 'main', square: 'a8' }],
  );
  assert.deepEqual(moved, [{ board: 'main', from: 'a7', to: 'a8' }]);
});

test('captured material against the start, or the surplus without it', () => {
  const start = [piece('d1', 'white', 'queen'), piece('a2', 'white', 'pawn'), piece('d8', 'black', 'queen'), piece('a7', 'black', 'pawn')];
  const now = [piece('d1', 'white', 'queen'), piece('d8', 'black', 'queen'), piece('x1', 'black', 'pawn', 'duel')];
  assert.deepEqual(captured(start, now), { white: ['pawn'], black: ['pawn'] });
  assert.deepEqual(captured(null, [piece('d1', 'white', 'queen'), piece('a2', 'white', 'pawn'), piece('b2', 'white', 'pawn'), piece('a7', 'black', 'pawn')]),
    { white: ['queen', 'pawn'], black: [] });
});

test('a Suicide player who can capture is told that taking is compulsory', () => {
  const rules = snapshot([MAIN], ['e4d5', 'a2a3'], [piece('e4', 'white', 'pawn'), piece('d5', 'black', 'pawn')]);
  assert.deepEqual(hintsFor('suicide', rules, 'white').map((h) => h.id), ['must_capture']);
  // Not on the opponent's turn: the opponent's choices are not the player's to learn.
  assert.deepEqual(hintsFor('suicide', rules, 'black'), []);
  assert.deepEqual(hintsFor('suicide', snapshot([MAIN], ['a2a3'], [piece('a2', 'white', 'pawn')]), 'white'), []);
});

test('dice: the public seed\'s commitment and first d20, as crates/rules/src/dice.rs has them', async () => {
  const seed = dice.unhex('00'.repeat(32));
  assert.equal(await dice.commitmentOf(seed), '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925');
  const key = await dice.hmacKey(seed);
  // HMAC-SHA256(zero seed, "" ‖ 0u64)'s first word is 0xf375180aba928884 (dice.rs, known_vector).
  assert.equal(await dice.rollDie(key, new Uint8Array(0), 0, 20), Number(0xf375180aba928884n % 20n) + 1);
  const rolls = await Promise.all(Array.from({ length: 200 }, (_, i) => dice.rollDie(key, new TextEncoder().encode('g'), i, 6)));
  assert.ok(rolls.every((r) => r >= 1 && r <= 6));
  assert.equal(new Set(rolls).size, 6);
  assert.equal(dice.hex(new Uint8Array([0, 15, 255])), '000fff');
});
