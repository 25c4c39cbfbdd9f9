// Davey Drehs' dice in words (static/game/dice.js): an attack's result as the move list, the
// roll panel and the export say it, the strikes the panel draws, which sound a roll makes,
// and which roll the panel shows. The effect lines are the rules engine's own
// (crates/rules/src/variant/drehs/combat.rs); crates/play/src/replay/pgn.rs has the same
// cases for the export's words.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATIC } from './fixtures.mjs';

const { attackWords, strikes, rollSound, lastRolled } = await import(new URL('game/dice.js', STATIC));

/** The engine's lines for `e4xd5` with the public dice: a hit that kills. */
const KILL = [
  'hit: white pawn e4 rolls d20 5 + 0 ears = 5 > armor 4 of black pawn d5',
  'damage: d4 = 4: black pawn d5 4 -> 0 LP',
  'kill: black pawn d5 dies; white pawn e4 moves to d5 and dons ear necklace 1',
];
/** A hit that leaves the target alive, and its counter that hits back. */
const TRADE = [
  'hit: white queen e7 rolls d20 9 + 1 ears = 10 > armor 4 of black pawn d7',
  'damage: 2d6 = 3: black pawn d7 4 -> 1 LP',
  'counter_hit: black pawn d7 rolls d20 18 + 0 ears = 18 > armor 12 of white queen e7',
  'counter_damage: d4 = 3: white queen e7 9 -> 6 LP',
];
/** A miss, and a counter that kills the attacker. */
const FATAL_MISS = [
  'miss: white knight c3 rolls d20 2 + 0 ears = 2 <= armor 6 of black bishop d5',
  'counter_hit: black bishop d5 rolls d20 15 + 0 ears = 15 > armor 6 of white knight c3',
  'counter_damage: d6 = 1: white knight c3 1 -> 0 LP',
  'counter_kill: white knight c3 dies',
];
/** A cannon shot: capped damage and splash. */
const CANNON = [
  'hit: white rook a1 rolls d20 12 + 0 ears = 12 > armor 4 of black pawn a5',
  "damage: 2d4 = 6, 3 after the cannon's cap: black pawn a5 4 -> 1 LP",
  'splash: black pawn b6 4 -> 3 LP',
  'splash: black pawn b5 4 -> 3 LP',
];

test('an attack reads as miss, hit and damage, kill and the counter', () => {
  assert.equal(attackWords(KILL), 'hit for 4, kill');
  assert.equal(attackWords(TRADE), 'hit for 3, counter hit for 3');
  assert.equal(attackWords(FATAL_MISS), 'miss, counter hit for 1, counter kill');
  assert.equal(attackWords([
    'miss: white pawn e4 rolls d20 3 + 0 ears = 3 <= armor 4 of black pawn d5',
    'counter_miss: black pawn d5 rolls d20 4 + 0 ears = 4 <= armor 4 of white pawn e4',
  ]), 'miss, counter miss');
  assert.equal(attackWords(CANNON), 'hit for 3, splash');
});

test('an action without an attack has no words', () => {
  assert.equal(attackWords([]), '');
  assert.equal(attackWords(undefined), '');
  assert.equal(attackWords(['heal: white pawn d2 2 -> 4 LP']), '');
});

test('the dice are matched to the strike they decided', () => {
  const action = {
    machine: 'e7xd7', human: 'Qe7xd7', squares: [], effects: TRADE,
    rolls: [
      { purpose: 'to_hit', dice: 'd20', value: 9 }, { purpose: 'damage', dice: 'd6', value: 2 },
      { purpose: 'damage', dice: 'd6', value: 1 }, { purpose: 'counter_to_hit', dice: 'd20', value: 18 },
      { purpose: 'counter_damage', dice: 'd4', value: 3 },
    ],
  };
  const [attack, counter] = strikes(action);
  assert.equal(attack.side, 'attack');
  assert.deepEqual(attack.toHit.map((r) => r.value), [9]);
  assert.deepEqual(attack.damage.map((r) => r.value), [2, 1]);
  assert.deepEqual([attack.verdict, attack.total, attack.armor, attack.dealt, attack.life, attack.kill],
    ['hit', 10, 4, 3, '4→1', false]);
  assert.equal(counter.side, 'counter');
  assert.deepEqual([counter.verdict, counter.total, counter.armor, counter.dealt, counter.life],
    ['hit', 18, 12, 3, '9→6']);
  assert.equal(rollSound(action), 'hit');
});

test('a miss sounds as a miss, a move without dice not at all', () => {
  const miss = {
    machine: 'c3xd5', human: 'Nc3xd5', squares: [], effects: FATAL_MISS,
    rolls: [{ purpose: 'to_hit', dice: 'd20', value: 2 }, { purpose: 'counter_to_hit', dice: 'd20', value: 15 },
      { purpose: 'counter_damage', dice: 'd6', value: 1 }],
  };
  assert.equal(rollSound(miss), 'miss');
  assert.equal(strikes(miss)[1].kill, true);
  assert.equal(rollSound({ machine: 'e2e4', human: 'e2-e4', squares: [], rolls: [], effects: [] }), null);
  assert.equal(rollSound(null), null);
});

test('the panel shows the last roll until the next one', () => {
  const rolled = { machine: 'e4xd5', human: 'e4xd5', squares: [], effects: KILL, rolls: [{ purpose: 'to_hit', dice: 'd20', value: 5 }] };
  const plain = { machine: 'a7a6', human: 'a7-a6', squares: [], rolls: [], effects: [] };
  const positions = [{}, { last_action: plain }, { last_action: plain }, { last_action: rolled }, { last_action: plain }];
  const at = (/** @type {number} */ ply) => positions[ply];
  assert.deepEqual(lastRolled(at, 4), { ply: 3, action: rolled });
  assert.deepEqual(lastRolled(at, 3), { ply: 3, action: rolled });
  assert.equal(lastRolled(at, 2), null);
  assert.equal(lastRolled(at, 0), null);
  // Positions not known yet (a page that joined late, before they arrive) are passed over.
  assert.deepEqual(lastRolled((ply) => (ply === 3 ? positions[3] : undefined), 5), { ply: 3, action: rolled });
});
