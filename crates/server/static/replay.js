// The replay page: every position of a stored game (`GET /api/games/{id}/replay`), stepped
// with buttons or the arrow keys, a click on a move to jump to it, flip, the export link and,
// for Davey Drehs, the roll log with the dice verified in the browser: the seed must hash
// (SHA-256) to the published commitment, and every roll must be what HMAC-SHA256(seed,
// game_id ‖ index) gives (docs/rules/drehs.md), recomputed here with WebCrypto. The engine
// analysis panel, with the best move's arrow on the board and the marks in the move list, is
// analysis.js.

import { analysisPanel } from './analysis.js';
import { BoardView } from './board.js';
import { api, outcomeText, renderMoves, wireHeader } from './common.js';
import { DicePanel, annotateMoves, lastRolled } from './game/dice.js';
import { $ } from './dom.js';
import { showToTests } from './test-hook.js';
import { commitmentOf, hmacKey, rollDie, unhex } from './dice-verify.js';

wireHeader();
const root = $('replay');
const gameId = root.dataset.gameId;
/**
 * A takeback or a gift of more time in the stored game.
 * @typedef {{ kind: 'takeback' | 'more_time', ply: number, by?: string, to?: string, ms?: number, taken_back?: import('./types.js').MoveView[] }} Adjustment
 */

/**
 * `GET /api/games/{id}/replay`: every position of the game, its actions and what else it says.
 * @typedef {object} Replay
 * @property {import('./types.js').Snapshot[]} snapshots
 * @property {import('./types.js').MoveView[]} actions
 * @property {Adjustment[]} [adjustments]
 * @property {string | null} white
 * @property {string | null} black
 * @property {string} variant_name
 * @property {string} status
 * @property {string} result
 * @property {import('./types.js').Outcome | null} outcome
 * @property {string | null} [dice_commitment]
 * @property {string | null} [dice_seed]
 */

const board = new BoardView($('boards'), {});
const dice = new DicePanel($('rolls'));
/** @type {{ data: Replay | null, ply: number, flipped: boolean, analysis: ReturnType<typeof analysisPanel> | null }} */
const state = { data: null, ply: 0, flipped: false, analysis: null };
showToTests('oddboard', state);

/** @param {number} ply */
function show(ply) {
  const data = state.data;
  state.ply = Math.max(0, Math.min(ply, data.snapshots.length - 1));
  board.setOrientation(state.flipped ? 'black' : 'white');
  board.update(data.snapshots[state.ply], false);
  renderMoves($('moves'), data.actions, state.ply, show);
  annotateMoves($('moves'), (ply) => data.snapshots[ply]);
  renderAdjustments($('moves'), data.adjustments || []);
  // As on the game page: the last roll at or before the position shown.
  dice.show(lastRolled((ply) => data.snapshots[ply], state.ply), false);
  const total = data.snapshots.length - 1;
  $('ply-label').textContent = `${state.ply} / ${total}`;
  root.dataset.ply = String(state.ply);
  const bottom = state.flipped ? 'black' : 'white';
  const top = bottom === 'white' ? 'black' : 'white';
  $('bottom-name').textContent = `${data[bottom] || '?'} (${bottom})`;
  $('top-name').textContent = `${data[top] || '?'} (${top})`;
  const current = $('moves').querySelector('.current');
  if (current) current.scrollIntoView({ block: 'nearest' });
  if (state.analysis) state.analysis.show(state.ply);
}

/** @param {string} color */
const colorName = (color) => (color === 'black' ? 'Black' : 'White');

/// A ply as a move list numbers it: `12. Nf3` for White's, `12… Nf6` for Black's.
/** @param {import('./types.js').MoveView} action */
const numbered = (action) => `${Math.ceil(action.ply / 2)}${action.ply % 2 ? '.' : '…'} ${action.human}`;

/// Takebacks and gifts of more time, each as a note in the move list after the move it
/// followed (`ply` is the number of actions right after it). Text only: names and
/// notations come from the server but are never parsed as HTML.
/**
 * @param {HTMLElement} list
 * @param {Adjustment[]} adjustments
 */
function renderAdjustments(list, adjustments) {
  const rows = [...list.children];
  const placed = new Map();
  for (const adjustment of adjustments) {
    const li = document.createElement('li');
    li.className = `adjustment ${adjustment.kind}`;
    li.dataset.kind = adjustment.kind;
    li.dataset.ply = String(adjustment.ply);
    if (adjustment.kind === 'takeback') {
      const moves = (adjustment.taken_back || []).map(numbered).join(' ');
      li.textContent = `${colorName(adjustment.by)} took back ${moves}`;
    } else {
      li.textContent = `+${Math.round((adjustment.ms || 0) / 1000)} s to ${colorName(adjustment.to)}`;
    }
    // After the row holding the move it followed (the rows hold two plies each), and after
    // the notes already placed there.
    const row = adjustment.ply > 0 ? rows[Math.ceil(adjustment.ply / 2) - 1] : null;
    const after = placed.get(row ?? null) ?? row;
    if (after) after.after(li);
    else list.prepend(li);
    placed.set(row ?? null, li);
  }
}

async function load() {
  try {
    state.data = await api(`/api/games/${gameId}/replay`);
  } catch (e) {
    $('status').textContent = e.message;
    root.dataset.loaded = 'error';
    return;
  }
  const d = state.data;
  $('status').textContent = `${d.variant_name} · ${d.white || '?'} – ${d.black || '?'} · ${d.outcome ? `${d.outcome.reason === 'aborted' ? '' : `${d.result} `}${outcomeText(d.outcome)}` : d.status}`;
  state.analysis = analysisPanel(gameId, {
    section: $('analysis'), button: $('analysis-toggle'), body: $('analysis-body'), status: $('analysis-status'),
    graph: $('analysis-graph'), line: $('analysis-line'), drops: $('analysis-drops'),
  }, show, { board, snapshots: d.snapshots, moves: d.actions, list: $('moves') });
  const over = d.status === 'finished' || d.status === 'aborted';
  /** @type {HTMLButtonElement} */ ($('analysis-toggle')).disabled = !over;
  if (!over) $('analysis-toggle').title = 'A game can be analysed once it is over.';
  show(d.snapshots.length - 1);
  root.dataset.loaded = 'true';
  if (d.dice_commitment) verifyDice(d);
}

$('first').addEventListener('click', () => show(0));
$('prev').addEventListener('click', () => show(state.ply - 1));
$('next').addEventListener('click', () => show(state.ply + 1));
$('last').addEventListener('click', () => show(Infinity));
$('flip').addEventListener('click', () => { state.flipped = !state.flipped; show(state.ply); });
document.addEventListener('keydown', (e) => {
  if (!state.data || /** @type {Element} */ (e.target).closest('input, textarea, select')) return;
  /** @type {Record<string, number>} */
  const moves = { ArrowLeft: state.ply - 1, ArrowRight: state.ply + 1, ArrowUp: 0, ArrowDown: Infinity, Home: 0, End: Infinity };
  if (e.key in moves) {
    e.preventDefault();
    show(moves[e.key]);
  }
});

// Dice verification ---------------------------------------------------------------------------
/** @param {Replay} d */
async function verifyDice(d) {
  $('dice').hidden = false;
  const result = $('dice-result');
  const log = $('roll-log');
  if (!d.dice_seed) {
    result.textContent = `Commitment ${d.dice_commitment}; the seed is revealed when the game is over.`;
    return;
  }
  if (!crypto.subtle) {
    result.textContent = 'This browser cannot compute HMAC-SHA256 here (WebCrypto needs a secure context).';
    return;
  }
  let record;
  try {
    record = await api(`/api/games/${gameId}/dice`);
  } catch (e) {
    result.textContent = e.message;
    return;
  }
  const seed = unhex(record.seed);
  const commitment = await commitmentOf(seed);
  const key = await hmacKey(seed);
  const gid = new TextEncoder().encode(record.game_id);
  let rolls = 0;
  let bad = 0;
  log.replaceChildren();
  for (const action of record.actions) {
    for (const roll of action.rolls) {
      // Each die of a roll has its own index: `dice` is like `d20` or `2d6`, one die a record.
      const sides = Number(roll.dice.split('d')[1]);
      const value = await rollDie(key, gid, roll.index, sides);
      const ok = value === roll.value;
      rolls += 1;
      if (!ok) bad += 1;
      const li = document.createElement('li');
      li.className = ok ? 'ok' : 'bad';
      li.textContent = `${action.human || action.action}: #${roll.index} ${roll.purpose.replace(/_/g, ' ')} ${roll.dice} = ${roll.value} ${ok ? '✓' : `✗ (expected ${value})`}`;
      log.appendChild(li);
    }
  }
  const seedOk = commitment === record.commitment;
  result.textContent = seedOk && bad === 0
    ? `Verified: the seed matches the commitment and all ${rolls} rolls match the seed.`
    : `NOT verified: ${seedOk ? '' : 'the seed does not match the commitment; '}${bad} of ${rolls} rolls differ.`;
  result.className = seedOk && bad === 0 ? 'verified' : 'error';
  root.dataset.dice = seedOk && bad === 0 ? 'verified' : 'failed';
}

load();
