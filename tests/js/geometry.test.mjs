// Board geometry: square names from indices and back, the cell a square is drawn in, with
// White or Black at the bottom.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DUEL, MAIN, STATIC, WIDE } from './fixtures.mjs';

const { squareName, squareLabel, squareIndex } = await import(new URL('board-actions.js', STATIC));
const { boardName, cellAt, cellPos, squarePos, CELL } = await import(new URL('board-draw.js', STATIC));

test('square names come from the labels, lower case', () => {
  assert.equal(squareName(MAIN, 0, 0), 'a1');
  assert.equal(squareName(MAIN, 4, 3), 'e4');
  assert.equal(squareName(WIDE, 11, 11), 'l12');
  assert.equal(squareName(DUEL, 2, 0), 'z1');
});

test('squares off the main board are named in upper case', () => {
  assert.equal(squareLabel('main', 'e4'), 'e4');
  assert.equal(squareLabel('duel', 'x1'), 'X1');
});

test('the square index holds every square of every board but the holes', () => {
  const index = squareIndex([MAIN, DUEL]);
  assert.equal(index.size, 64 + 8);
  assert.equal(index.get('h8'), 'main');
  assert.equal(index.get('z3'), 'duel');
  assert.equal(index.has('y2'), false);
  assert.equal(index.has('a0'), false);
});

test('White at the bottom: a1 bottom left, h8 top right', () => {
  assert.deepEqual(squarePos(MAIN, 'a1', 'white'), [0, 7 * CELL]);
  assert.deepEqual(squarePos(MAIN, 'h8', 'white'), [7 * CELL, 0]);
  assert.deepEqual(squarePos(MAIN, 'e4', 'white'), [4 * CELL, 4 * CELL]);
});

test('flipped for Black: h8 bottom left, a1 top right', () => {
  assert.deepEqual(squarePos(MAIN, 'h8', 'black'), [0, 7 * CELL]);
  assert.deepEqual(squarePos(MAIN, 'a1', 'black'), [7 * CELL, 0]);
  assert.deepEqual(squarePos(WIDE, 'a10', 'black'), [11 * CELL, 9 * CELL]);
});

test('cellAt undoes cellPos in both orientations', () => {
  for (const orientation of ['white', 'black']) {
    for (const board of [MAIN, DUEL, WIDE]) {
      for (let f = 0; f < board.files; f++) {
        for (let r = 0; r < board.ranks; r++) {
          const [x, y] = cellPos(board, f, r, orientation);
          assert.deepEqual(cellAt(board, x / CELL, y / CELL, orientation), [f, r]);
        }
      }
    }
  }
});

test('a square the board does not have has no position', () => {
  assert.equal(squarePos(MAIN, 'i1', 'white'), null);
  assert.equal(squarePos(MAIN, 'a9', 'black'), null);
});

test('boards are named for screen readers', () => {
  assert.equal(boardName(MAIN, 1), 'Board');
  assert.equal(boardName(MAIN, 2), 'Main board');
  assert.equal(boardName(DUEL, 2), 'Duel board');
});
