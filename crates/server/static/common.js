// Shared helpers of the pages: JSON requests, the signed-in user, names of outcomes.

/// A JSON request; resolves to the parsed body, rejects with an Error carrying the API's
/// `error` code and message.
export async function api(path, body, method) {
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
    const error = new Error((data && data.message) || response.statusText);
    error.code = data && data.error;
    error.status = response.status;
    throw error;
  }
  return data;
}

/// The signed-in user's name from the page header, or null.
export function myName() {
  const el = document.getElementById('me');
  return (el && el.dataset.username) || null;
}

const REASONS = {
  checkmate: 'checkmate', stalemate: 'stalemate', resign: 'resignation', resignation: 'resignation',
  timeout: 'time', timeout_vs_insufficient: 'time against insufficient material',
  agreement: 'agreement', draw_agreement: 'agreement', abandoned: 'abandonment',
  no_pieces: 'no pieces left', no_moves: 'no moves left',
};

/// "White wins by checkmate", "Draw by agreement"…
export function outcomeText(outcome) {
  if (!outcome) return '';
  // An aborted game counts for nobody: it is no draw.
  if (outcome.reason === 'aborted') return 'Aborted';
  const reason = REASONS[outcome.reason] || String(outcome.reason).replace(/_/g, ' ');
  if (!outcome.winner) return `Draw (${reason})`;
  return `${outcome.winner === 'white' ? 'White' : 'Black'} wins (${reason})`;
}

/// "5+3" or "no clock" from a stored clock setting or a time control.
export function clockText(clock) {
  if (!clock) return 'no clock';
  const minutes = clock.initial_ms / 60000;
  return `${Number.isInteger(minutes) ? minutes : minutes.toFixed(1)}+${Math.round(clock.increment_ms / 1000)}`;
}

/// "1:05", "0:09.3" below ten seconds.
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  const total = Math.floor(clamped / 1000);
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  if (clamped < 10000) return `${minutes}:${String(seconds).padStart(2, '0')}.${Math.floor((clamped % 1000) / 100)}`;
  return `${minutes}:${String(seconds).padStart(2, '0')}`;
}

/// Fills an `<ol>` with the moves in human notation, two plies a line.
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
        b.type = 'button';
        b.setAttribute('aria-label', `Go to ply ${j + 1}: ${moves[j].human}`);
        b.addEventListener('click', () => onJump(j + 1));
      }
      li.appendChild(b);
    }
    list.appendChild(li);
  }
}

/// The dice of the last action and its effects, as list items.
export function renderRolls(el, last) {
  if (!el) return;
  el.replaceChildren();
  if (!last || (!(last.rolls || []).length && !(last.effects || []).length)) return;
  const head = document.createElement('p');
  head.className = 'rolls-head';
  head.textContent = `${last.human}:`;
  el.appendChild(head);
  const ul = document.createElement('ul');
  for (const r of last.rolls || []) {
    const li = document.createElement('li');
    li.className = 'roll';
    li.textContent = `${r.purpose.replace(/_/g, ' ')}: ${r.dice} = ${r.value}`;
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

/// Escapes text for HTML markup.
export function esc(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  })[c]);
}
