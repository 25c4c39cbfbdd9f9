// Shared helpers of the pages: JSON requests, the signed-in user, names of outcomes.

import { esc } from './dom.js';

/**
 * An Error from `api`, with the API's `error` code and the HTTP status.
 * @typedef {Error & { code?: string, status?: number }} ApiError
 */

/// A JSON request; resolves to the parsed body, rejects with an Error carrying the API's
/// `error` code and message.
/**
 * @param {string} path
 * @param {unknown} [body] sent as JSON; a POST when given
 * @param {string} [method]
 * @returns {Promise<any>} the parsed answer, whose shape the caller knows from docs/api
 */
export async function api(path, body, method) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = { method: method || (body === undefined ? 'GET' : 'POST'), headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = { message: text }; }
  if (!response.ok) {
    const error = /** @type {ApiError} */ (new Error((data && data.message) || response.statusText));
    error.code = data && data.error;
    error.status = response.status;
    throw error;
  }
  return data;
}

/// The signed-in user's name from the page header, or null.
/** @returns {string | null} */
export function myName() {
  const el = document.getElementById('me');
  return (el && el.dataset.username) || null;
}

/** @type {Record<string, string>} */
const REASONS = {
  checkmate: 'checkmate', stalemate: 'stalemate', resign: 'resignation', resignation: 'resignation',
  timeout: 'time', timeout_vs_insufficient: 'time against insufficient material',
  agreement: 'agreement', draw_agreement: 'agreement', abandoned: 'abandonment',
  no_pieces: 'no pieces left', no_moves: 'no moves left',
};

/// "White wins by checkmate", "Draw by agreement"…
/**
 * @param {import('./types.js').Outcome | null} outcome
 * @returns {string}
 */
export function outcomeText(outcome) {
  if (!outcome) return '';
  // An aborted game counts for nobody: it is no draw.
  if (outcome.reason === 'aborted') return 'Aborted';
  const reason = REASONS[outcome.reason] || String(outcome.reason).replace(/_/g, ' ');
  if (!outcome.winner) return `Draw (${reason})`;
  return `${outcome.winner === 'white' ? 'White' : 'Black'} wins (${reason})`;
}

/// "1-0", "0-1" or "½-½" for a decided outcome.
/**
 * @param {import('./types.js').Outcome} outcome
 * @returns {string}
 */
export function scoreText(outcome) {
  if (outcome.winner === 'white') return '1-0';
  return outcome.winner === 'black' ? '0-1' : '½-½';
}

/// "5+3" or "no clock" from a stored clock setting or a time control.
/**
 * @param {import('./types.js').TimeControl | null} clock
 * @returns {string}
 */
export function clockText(clock) {
  if (!clock) return 'no clock';
  const minutes = clock.initial_ms / 60000;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)}+${Math.round(clock.increment_ms / 1000)}`;
}

/// "1:05", "0:09.3" below ten seconds.
/**
 * @param {number} ms
 * @returns {string}
 */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  const total = Math.floor(clamped / 1000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  if (clamped < 10000) return `${minutes}:${String(seconds).padStart(2, '0')}.${Math.floor((clamped % 1000) / 100)}`;
  return `${minutes}:${String(seconds).padStart(2, '0')}`;
}

/// Fills an `<ol>` with the moves in human notation, two plies a line.
/**
 * @param {HTMLElement} list
 * @param {import('./types.js').MoveView[]} moves
 * @param {number} current the ply marked current
 * @param {(ply: number) => void} [onJump] makes the moves buttons that go to their ply
 */
export function renderMoves(list, moves, current, onJump) {
  list.replaceChildren();
  for (let i = 0; i < moves.length; i += 2) {
    const li = document.createElement('li');
    for (const j of [i, i + 1]) {
      if (j >= moves.length) break;
      const b = document.createElement(onJump ? 'button' : 'span');
      b.className = 'move' + (current === j + 1 ? ' current' : '');
      b.textContent = moves[j].human;
      b.dataset.ply = String(j + 1);
      if (onJump) {
        /** @type {HTMLButtonElement} */ (b).type = 'button';
        b.setAttribute('aria-label', `Go to ply ${j + 1}: ${moves[j].human}`);
        b.addEventListener('click', () => onJump(j + 1));
      }
      li.appendChild(b);
    }
    list.appendChild(li);
  }
}

/// Pip positions of a die face, by value (a 100-unit face).
/** @type {Record<number, [number, number][]>} */
const PIPS = {
  1: [[50, 50]],
  2: [[28, 28], [72, 72]],
  3: [[28, 28], [50, 50], [72, 72]],
  4: [[28, 28], [72, 28], [28, 72], [72, 72]],
  5: [[28, 28], [72, 28], [50, 50], [28, 72], [72, 72]],
  6: [[28, 24], [72, 24], [28, 50], [72, 50], [28, 76], [72, 76]],
};

/// A die showing `value`: a square face with pips for dice of up to six sides (a d4 or d6
/// shows its face as a die of six would), else the number on a many-sided die's outline.
/**
 * @param {string} dice `d20`, `2d6`…
 * @param {number} value
 * @returns {SVGSVGElement}
 */
export function dieElement(dice, value) {
  const [count, sides] = String(dice).split('d').map((n) => Number(n || 1));
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('viewBox', '0 0 100 100');
  svg.setAttribute('class', `die ${dice}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${dice} showing ${value}`);
  svg.dataset.value = String(value);
  const pips = count === 1 && sides <= 6 && PIPS[value];
  if (pips) {
    svg.innerHTML = '<rect class="face" x="4" y="4" width="92" height="92" rx="16"/>'
      + pips.map(([x, y]) => `<circle class="pip" cx="${x}" cy="${y}" r="9"/>`).join('');
  } else {
    svg.innerHTML = '<path class="face" d="M50 3 L91 26 L91 74 L50 97 L9 74 L9 26 Z"/>'
      + `<text class="number" x="50" y="64" text-anchor="middle">${esc(value)}</text>`;
  }
  return svg;
}

/// The dice of the last action, drawn as dice and grouped by what they decided ("damage:
/// two dice = 3"), then its effects, as list items.
/**
 * @param {HTMLElement | null} el
 * @param {import('./types.js').LastAction | null} last
 */
export function renderRolls(el, last) {
  if (!el) return;
  // The pages name the dice area (`aria-label="Dice"`); a name needs a role to hang on.
  if (el.hasAttribute('aria-label') && !el.hasAttribute('role')) el.setAttribute('role', 'group');
  el.replaceChildren();
  if (!last || (!(last.rolls || []).length && !(last.effects || []).length)) return;
  const head = document.createElement('p');
  head.className = 'rolls-head';
  head.textContent = `${last.human}:`;
  el.appendChild(head);
  const ul = document.createElement('ul');
  const groups = [];
  for (const r of last.rolls || []) {
    const group = groups[groups.length - 1];
    if (group && group.purpose === r.purpose) group.rolls.push(r);
    else groups.push({ purpose: r.purpose, rolls: [r] });
  }
  for (const g of groups) {
    const li = document.createElement('li');
    li.className = 'roll';
    li.dataset.purpose = g.purpose;
    const purpose = document.createElement('span');
    purpose.className = 'roll-purpose';
    purpose.textContent = `${g.purpose.replace(/_/g, ' ')}:`;
    li.appendChild(purpose);
    for (const r of g.rolls) li.appendChild(dieElement(r.dice, r.value));
    if (g.rolls.length > 1) {
      const total = document.createElement('span');
      total.className = 'roll-total';
      total.textContent = `= ${g.rolls.reduce((n, r) => n + r.value, 0)}`;
      li.appendChild(total);
    }
    ul.appendChild(li);
  }
  for (const e of last.effects || []) {
    const li = document.createElement('li');
    li.className = 'effect';
    li.textContent = e;
    ul.appendChild(li);
  }
  el.appendChild(ul);
}

/// Wires the header's sign-out button.
export function wireHeader() {
  const out = document.getElementById('logout');
  if (!out) return;
  out.addEventListener('click', async () => {
    try {
      await api('/api/auth/logout', {});
      location.href = '/';
    } catch (err) {
      // Still signed in: say so where the button is.
      out.title = `Sign-out failed: ${err.message}`;
      out.textContent = 'Sign out (failed, retry)';
    }
  });
}
