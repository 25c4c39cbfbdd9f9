// Davey Drehs' dice in front (issue 48): the roll panel beside the board, the result of each
// attack in words beside its move in the move list, and which sound a roll makes. Owns the
// reading of an action's rolls and effect lines (docs/rules/drehs.md, "Action notation":
// each effect line starts with a keyword, `hit`, `miss`, `damage`, `kill`, `counter_hit`, …)
// into strikes and words. The game page and the replay page both use it, so a player, a
// spectator and a reader of the replay see the same thing; the export writes the same words
// (crates/play/src/replay/pgn.rs, `attack_words`, which must say what `attackWords` says).
//
// The panel shows the last action that rolled, at or before the position shown, so a move
// that rolls nothing (the computer's answer within a second) does not clear it: it stays
// until the next roll.

import { dieElement } from '../common.js';

/** @typedef {import('../types.js').LastAction} LastAction */
/** @typedef {import('../types.js').Roll} Roll */

/**
 * One side's strike of an action: the attack (or cannon shot), or the target's counter.
 * @typedef {object} Strike
 * @property {'attack' | 'counter'} side
 * @property {Roll[]} toHit the d20
 * @property {Roll[]} damage the weapon's dice (none on a miss)
 * @property {'hit' | 'miss' | null} verdict null when the effect lines do not say
 * @property {number | null} total d20 plus ears
 * @property {number | null} armor what the total had to beat
 * @property {number | null} dealt the damage done (a cannon's after its cap)
 * @property {string | null} life the target's life points before and after, `4 → 1`
 * @property {boolean} kill
 */

/// The number after `= ` in a damage line: the rolled total, or a cannon's capped damage.
/** @param {string} line @returns {number | null} */
function dealtIn(line) {
  const capped = /, (\d+) after the cannon's cap/.exec(line);
  if (capped) return Number(capped[1]);
  const rolled = /= (\d+)/.exec(line);
  return rolled ? Number(rolled[1]) : null;
}

/// An action's result in words, from its effect lines alone (the export has only those):
/// `miss, counter hit for 3`, `hit for 11, kill`, `hit for 2, splash`. Empty when it was no
/// attack.
/** @param {string[] | undefined} effects @returns {string} */
export function attackWords(effects) {
  /** @type {string[]} */
  const words = [];
  for (const line of effects || []) {
    const keyword = line.split(':', 1)[0];
    switch (keyword) {
      case 'hit': case 'miss': case 'kill':
      case 'counter_hit': case 'counter_miss': case 'counter_kill':
        words.push(keyword.replace('_', ' '));
        break;
      case 'damage': case 'counter_damage': {
        // The damage line follows its hit line: that hit gets its number.
        const dealt = dealtIn(line);
        const hit = keyword === 'damage' ? 'hit' : 'counter hit';
        if (words[words.length - 1] === hit && dealt !== null) words[words.length - 1] = `${hit} for ${dealt}`;
        break;
      }
      case 'splash':
        if (!words.includes('splash')) words.push('splash');
        break;
      default:
        break;
    }
  }
  return words.join(', ');
}

/// The strikes of an action, its dice matched to what its effect lines say they decided.
/** @param {LastAction | null | undefined} action @returns {Strike[]} */
export function strikes(action) {
  /** @type {Strike[]} */
  const out = [];
  /** @param {'attack' | 'counter'} side @returns {Strike} */
  const strike = (side) => {
    let s = out.find((x) => x.side === side);
    if (!s) {
      s = { side, toHit: [], damage: [], verdict: null, total: null, armor: null, dealt: null, life: null, kill: false };
      out.push(s);
    }
    return s;
  };
  for (const roll of (action && action.rolls) || []) {
    const side = roll.purpose.startsWith('counter') ? 'counter' : 'attack';
    if (roll.purpose.endsWith('to_hit')) strike(side).toHit.push(roll);
    else if (roll.purpose.endsWith('damage')) strike(side).damage.push(roll);
  }
  for (const line of (action && action.effects) || []) {
    const keyword = line.split(':', 1)[0];
    const side = keyword.startsWith('counter') ? 'counter' : 'attack';
    const verdict = keyword.replace('counter_', '');
    if (verdict === 'hit' || verdict === 'miss') {
      const s = strike(side);
      s.verdict = verdict;
      const m = /= (\d+) (?:>|<=) armor (\d+)/.exec(line);
      if (m) { s.total = Number(m[1]); s.armor = Number(m[2]); }
    } else if (verdict === 'damage') {
      const s = strike(side);
      s.dealt = dealtIn(line);
      const m = /(\d+) -> (\d+) LP$/.exec(line);
      if (m) s.life = `${m[1]}→${m[2]}`;
    } else if (verdict === 'kill') {
      strike(side).kill = true;
    }
  }
  // Effects without dice (a heal, a teleport) are no strike.
  return out.filter((s) => s.toHit.length || s.damage.length);
}

/// The sound of an action that rolled: `hit` when its first strike hit, `miss` when it
/// missed; null for an action without dice.
/** @param {LastAction | null | undefined} action @returns {'hit' | 'miss' | null} */
export function rollSound(action) {
  const first = strikes(action)[0];
  if (!first || !first.verdict) return null;
  return first.verdict;
}

/// The last action that rolled at or before `ply`, found from the positions by ply.
/**
 * @param {(ply: number) => { last_action?: LastAction | null } | undefined | null} at
 * @param {number} ply
 * @returns {{ ply: number, action: LastAction } | null}
 */
export function lastRolled(at, ply) {
  for (let p = ply; p > 0; p--) {
    const action = at(p)?.last_action;
    if (action && (action.rolls || []).length) return { ply: p, action };
  }
  return null;
}

/// One strike as a row of the panel: what it was, its dice, and what they decided.
/** @param {Strike} s @returns {HTMLLIElement} */
function strikeRow(s) {
  const li = document.createElement('li');
  li.className = 'strike';
  li.dataset.side = s.side;
  if (s.verdict) li.dataset.verdict = s.verdict;
  const label = document.createElement('span');
  label.className = 'strike-label';
  label.textContent = s.side === 'counter' ? 'Counter' : 'Attack';
  li.appendChild(label);
  for (const r of s.toHit) li.appendChild(dieElement(r.dice, r.value));
  const verdict = document.createElement('span');
  verdict.className = 'strike-verdict';
  // Short, so that a strike fits on one line of a phone: `9 vs armor 4: hit` (the style
  // sheet leaves out "armor" on the narrowest screens).
  if (s.total !== null && s.armor !== null) {
    verdict.append(`${s.total} vs`);
    const armor = document.createElement('span');
    armor.className = 'armor-word';
    armor.textContent = ' armor';
    verdict.append(armor, ` ${s.armor}${s.verdict ? ': ' : ''}`);
  }
  const word = document.createElement('b');
  word.textContent = s.verdict || '';
  verdict.append(word);
  verdict.title = 'd20 plus ears against armor';
  li.appendChild(verdict);
  if (s.damage.length) {
    for (const r of s.damage) li.appendChild(dieElement(r.dice, r.value));
    const dealt = document.createElement('span');
    dealt.className = 'strike-damage';
    const parts = [];
    if (s.dealt !== null) parts.push(`${s.dealt} dmg`);
    if (s.life) parts.push(`${s.life} LP`);
    if (s.kill) parts.push('kill');
    dealt.textContent = parts.join(', ');
    li.appendChild(dealt);
  }
  return li;
}

/// The roll panel: the last roll at or before the position shown, drawn again only when that
/// changes (so the live region speaks once per roll, and an open detail stays open).
export class DicePanel {
  /** @param {HTMLElement} el */
  constructor(el) {
    this.el = el;
    /** @type {string | null} what is drawn: ply and action, or '' for nothing */
    this.key = null;
  }

  /**
   * @param {{ ply: number, action: LastAction } | null} found from `lastRolled`
   * @param {boolean} fresh whether it just happened (it then rolls in, motion allowing)
   */
  show(found, fresh) {
    const key = found ? `${found.ply} ${found.action.machine}` : '';
    if (key === this.key) return;
    this.key = key;
    this.el.replaceChildren();
    this.el.hidden = !found;
    if (!found) return;
    const { ply, action } = found;
    const words = attackWords(action.effects);
    // A div, not a paragraph: it holds the folded details.
    const head = document.createElement('div');
    head.className = 'dice-head';
    const move = document.createElement('span');
    move.className = 'dice-move';
    move.textContent = `${Math.ceil(ply / 2)}${ply % 2 ? '.' : '…'} ${action.human}`;
    head.appendChild(move);
    if (words) {
      const result = document.createElement('span');
      result.className = 'dice-words';
      result.textContent = words;
      head.appendChild(result);
    }
    const ul = document.createElement('ul');
    ul.className = 'strikes';
    for (const s of strikes(action)) ul.appendChild(strikeRow(s));
    this.el.appendChild(ul);
    if ((action.effects || []).length) {
      // Every effect line as the rules wrote it, for whoever wants the detail (LP of the
      // splash, the promotion), folded so that the panel stays small beside the board.
      const details = document.createElement('details');
      const summary = document.createElement('summary');
      summary.textContent = 'Details';
      details.appendChild(summary);
      const lines = document.createElement('ul');
      for (const e of action.effects || []) {
        const li = document.createElement('li');
        li.textContent = e;
        lines.appendChild(li);
      }
      details.appendChild(lines);
      // In the head line, closed, so that it costs the panel no height of its own.
      head.appendChild(details);
    }
    this.el.insertBefore(head, ul);
    this.el.dataset.ply = String(ply);
    this.el.dataset.words = words;
    // The roll-in is CSS, which turns it off for prefers-reduced-motion.
    this.el.classList.toggle('fresh', fresh);
  }
}

/// Adds each attack's result in words to its move in a list drawn by `renderMoves`
/// (common.js): `Qe2xe7 hit for 11, kill`.
/**
 * @param {HTMLElement} list
 * @param {(ply: number) => { last_action?: LastAction | null } | undefined | null} at
 */
export function annotateMoves(list, at) {
  for (const move of list.querySelectorAll('.move[data-ply]')) {
    const el = /** @type {HTMLElement} */ (move);
    const words = attackWords(at(Number(el.dataset.ply))?.last_action?.effects);
    if (!words) continue;
    const span = document.createElement('span');
    span.className = 'move-result';
    span.textContent = ` ${words}`;
    el.appendChild(span);
    const label = el.getAttribute('aria-label');
    if (label) el.setAttribute('aria-label', `${label}, ${words}`);
  }
}
