// What the pages write from numbers and outcomes: clocks, scores, outcomes, escaped markup,
// the engine's scores and the rating chart's gridlines.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STATIC } from './fixtures.mjs';

const { formatClock, clockText, outcomeText, scoreText } = await import(new URL('common.js', STATIC));
const { esc } = await import(new URL('dom.js', STATIC));
const analysis = await import(new URL('analysis.js', STATIC));
const { gridValues, chartSvg } = await import(new URL('rating-chart.js', STATIC));

test('clocks read m:ss, with tenths below ten seconds', () => {
  assert.equal(formatClock(65000), '1:05');
  assert.equal(formatClock(600000), '10:00');
  assert.equal(formatClock(10000), '0:10');
  assert.equal(formatClock(9999), '0:09.9');
  assert.equal(formatClock(9350), '0:09.3');
  assert.equal(formatClock(0), '0:00.0');
  assert.equal(formatClock(-500), '0:00.0');
});

test('time controls read minutes+increment', () => {
  assert.equal(clockText({ initial_ms: 300000, increment_ms: 3000 }), '5+3');
  assert.equal(clockText({ initial_ms: 90000, increment_ms: 0 }), '1.5+0');
  assert.equal(clockText(null), 'no clock');
});

test('scores are 1-0, 0-1 or ½-½', () => {
  assert.equal(scoreText({ winner: 'white', reason: 'checkmate' }), '1-0');
  assert.equal(scoreText({ winner: 'black', reason: 'resign' }), '0-1');
  assert.equal(scoreText({ winner: null, reason: 'stalemate' }), '½-½');
});

test('outcomes say who won and why', () => {
  assert.equal(outcomeText({ winner: 'white', reason: 'checkmate' }), 'White wins (checkmate)');
  assert.equal(outcomeText({ winner: 'black', reason: 'timeout' }), 'Black wins (time)');
  assert.equal(outcomeText({ winner: null, reason: 'draw_agreement' }), 'Draw (agreement)');
  assert.equal(outcomeText({ winner: 'white', reason: 'king_captured' }), 'White wins (king captured)');
  assert.equal(outcomeText({ winner: null, reason: 'aborted' }), 'Aborted');
  assert.equal(outcomeText(null), '');
});

test('markup escapes the five characters, and nothing for nothing', () => {
  assert.equal(esc(`<a href="x">Tom & Jerry's</a>`), '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;');
  assert.equal(esc(null), '');
  assert.equal(esc(undefined), '');
  assert.equal(esc(0), '0');
});

test('engine scores in pawns, mates and results', () => {
  assert.equal(analysis.scoreText({ cp: 35 }), '+0.35');
  assert.equal(analysis.scoreText({ cp: -120 }), '-1.20');
  assert.equal(analysis.scoreText({ cp: 0 }), '0.00');
  assert.equal(analysis.scoreText({ mate: -2 }), '#-2');
  assert.equal(analysis.scoreText({ result: '1-0' }), '1-0');
  assert.equal(analysis.scoreText(null), '…');
});

test('chart gridlines are round and cover the ratings', () => {
  assert.deepEqual(gridValues(1480, 1560), [1475, 1500, 1525, 1550, 1575]);
  assert.deepEqual(gridValues(1500, 1500), [1500]);
  assert.deepEqual(gridValues(1200, 2100), [1200, 1400, 1600, 1800, 2000, 2200]);
});

test('the chart has a point a game and names the last rating', () => {
  const entries = [1500, 1516, 1490.4].map((rating, i) => ({ variant: 'duel', rating, game_id: `g${i}`, created_at: '2026-01-02T03:04:05Z' }));
  const svg = chartSvg(entries, 'cap', 500);
  assert.match(svg, /^<svg class="rating-chart" viewBox="0 0 500 200"/);
  assert.equal(svg.match(/<circle class="chart-point"/g).length, 3);
  assert.deepEqual([...svg.matchAll(/data-rating="(\d+)"/g)].map((m) => m[1]), ['1500', '1516', '1490']);
  assert.match(svg, /<text class="chart-current"[^>]*>1490<\/text>/);
});
