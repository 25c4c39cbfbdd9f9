// The open challenge's words on the game page (static/game/challenge.js): who challenges,
// the variant, the clock, the colour the one who accepts gets, rated or casual.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATIC } from './fixtures.mjs';

const { acceptorColour, challengeText, seatName } = await import(new URL('game/challenge.js', STATIC));

/** A waiting game as the snapshot gives it, with only the fields the panel reads. */
const waiting = (fields = {}) => ({
  status: 'waiting', creator: 'alice', variant: 'duel', color_choice: 'white',
  time_control: { initial_ms: 300000, increment_ms: 3000 }, rated: false, ...fields,
});

test('the one who accepts gets the other colour, or one drawn at random', () => {
  assert.equal(acceptorColour('white'), 'Black');
  assert.equal(acceptorColour('black'), 'White');
  assert.equal(acceptorColour('random'), 'a colour drawn at random');
});

test('the friend reads who challenges them and on what terms', () => {
  assert.deepEqual(challengeText(waiting(), 'bob', 'Duel Chess'),
    { heading: 'alice challenges you', terms: 'Duel Chess · 5+3 · you play Black · casual', mine: false });
  // Signed out: the same words, as whoever opens the link may accept.
  assert.equal(challengeText(waiting({ time_control: null, rated: true }), null, 'Chad').terms,
    'Chad · no clock · you play Black · rated');
  assert.equal(challengeText(waiting({ color_choice: 'random' }), 'bob', 'x').terms,
    'x · 5+3 · you play a colour drawn at random · casual');
});

test('the creator reads their own terms', () => {
  assert.deepEqual(challengeText(waiting({ color_choice: 'black' }), 'alice', 'Duel Chess'),
    { heading: 'Your challenge', terms: 'Duel Chess · 5+3 · you play Black · casual', mine: true });
  assert.equal(challengeText(waiting({ color_choice: 'random' }), 'alice', 'd').terms,
    'd · 5+3 · colours drawn at random · casual');
});

test('a game under way or over is no challenge', () => {
  for (const status of ['active', 'finished', 'aborted']) assert.equal(challengeText(waiting({ status }), 'bob', 'd'), null);
});

test('the bars of an open challenge name the challenger and the open seat', () => {
  // alice chose White: her name on White's bar, for her and for the friend alike.
  for (const me of ['alice', 'bob', null]) {
    assert.equal(seatName(waiting({ white: null, black: null }), 'white', me === 'alice', me), 'alice (white)');
    assert.equal(seatName(waiting({ white: null, black: null }), 'black', me !== 'alice', me), 'Waiting for an opponent (black)');
  }
  // Colours drawn at the start: the challenger on their own bottom bar, on the friend's top one.
  const random = waiting({ color_choice: 'random', white: null, black: null });
  assert.equal(seatName(random, 'white', true, 'alice'), 'alice (colour drawn at the start)');
  assert.equal(seatName(random, 'black', false, 'alice'), 'Waiting for an opponent');
  assert.equal(seatName(random, 'black', false, 'bob'), 'alice (colour drawn at the start)');
  assert.equal(seatName(random, 'white', true, 'bob'), 'Waiting for an opponent');
});

test('a seated player is named on their colour once the game starts', () => {
  const started = waiting({ status: 'active', white: 'alice', black: 'bob' });
  assert.equal(seatName(started, 'black', false, 'alice'), 'bob (black)');
  assert.equal(seatName(waiting({ status: 'active', white: 'alice', black: null }), 'black', true, null), '… (black)');
});
