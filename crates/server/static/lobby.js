// The lobby page (docs/protocol.md, "The lobby"). First a quick-pairing grid (variant x
// clock): one click sends an ordinary lobby `seek` (auto, open colour, full range; rated or
// casual as a registered player chose above the grid, remembered in localStorage, and casual
// for guests, so a guest and a registered player on the same casual cell meet; each cell
// says which it seeks), so it pairs at once with a compatible waiting seek, and FICS clients
// and the console see it; while it waits its cell shows "searching" and the search can be
// cancelled (`unseek`), and another cell replaces it. Then buttons for the full seek form
// ("Create a game", every FICS option, or a named opponent with `match`), the computer and a
// challenge link for a friend, each a dialog; the players online and games in play; the open
// seeks (list and graph: live on the lobby socket when signed in, polled from
// `GET /api/seeks` otherwise); challenges; games in progress as small live boards
// (`lobby/live.js`); open challenge links; and, one step away, the console.
//
// A signed-out visitor who acts on a seek, a grid cell or the seek form is asked to sign in,
// register or play as a guest; what they clicked is kept in sessionStorage across the reload
// that signing in needs, and carried out once the lobby socket is up.
//
// URL parameters other pages link to: `?challenge=NAME` opens "Create a game" with the
// opponent filled in, `?computer=VARIANT` the computer dialog with that variant,
// `?variant=VARIANT` highlights that variant's row of the grid.

import { api, myName, clockText, wireHeader } from './common.js';
import { $, esc } from './dom.js';
import { showToTests } from './test-hook.js';
import { LiveBoards } from './lobby/live.js';

wireHeader();
/** @type {Record<string, string>} */
const VARIANT_NAMES = {};
for (const o of /** @type {NodeListOf<HTMLOptionElement>} */ (document.querySelectorAll('#seek-variant option'))) VARIANT_NAMES[o.value] = o.textContent;
/** @param {string} v @returns {string} */
const vname = (v) => VARIANT_NAMES[v] || v;
/// The highest rating a seek's range may name: the page has it from the server.
const MAX_RATING = Number(/** @type {HTMLInputElement} */ ($('seek-max')).max);
/// Where a signed-out visitor's action waits across the sign-in reload.
const PENDING_KEY = 'oddboard.lobby.pending';
/// A registered player's last choice of rated or casual quick pairing.
const RATED_KEY = 'oddboard.lobby.quick-rated';

/**
 * What the lobby page lives by, read by the browser tests as `window.oddboard.lobby`
 * (test-hook.js): the socket and the commands awaiting their answer, the seeks and
 * challenges as the server says them, and the grid's search under way.
 * @type {{
 *   socket: WebSocket | null, seeks: Map<number, import('./types.js').Seek>, challenges: Map<number, import('./types.js').Challenge>,
 *   retry: number, ref: number, pending: Map<number, (answer: Answer) => void>,
 *   registered: boolean, connected: boolean,
 *   searching: { id: number, variant: string, time: number, inc: number, rated: boolean, cancelling?: boolean } | null,
 * }}
 */
const lobby = {
  socket: null, seeks: new Map(), challenges: new Map(), retry: 0, ref: 0, pending: new Map(),
  registered: false, connected: false,
  /// The quick-pairing search under way: `{ id, variant, time, inc, rated }`.
  searching: null,
};
showToTests('oddboard', { lobby });

/**
 * The answer to a lobby command: a reply's text and data, or a refusal's text and code.
 * @typedef {{ text: string, data?: any, code?: string, error?: boolean }} Answer
 */

/**
 * What a signed-out visitor clicked, kept across the sign-in reload.
 * @typedef {{ kind: 'quick', variant: string, time: number, inc: number } | { kind: 'command', message: import('./types.js').ClientMsg }} Pending
 */

// Account and the sign-in dialog ---------------------------------------------------------
/// What a signed-out visitor asked for, carried out after they sign in.
/** @type {Pending | null} */
let afterSignIn = null;

async function signedIn() {
  if (afterSignIn) sessionStorage.setItem(PENDING_KEY, JSON.stringify(afterSignIn));
  location.reload();
}

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = /** @type {HTMLFormElement & { username: HTMLInputElement, password: HTMLInputElement }} */ (e.target);
  const submitter = /** @type {HTMLButtonElement | null} */ (e.submitter);
  const action = submitter && submitter.value === 'register' ? 'register' : 'login';
  try {
    await api(`/api/auth/${action}`, { username: form.username.value, password: form.password.value });
    await signedIn();
  } catch (err) {
    $('account-status').textContent = err.message;
  }
});
$('guest-button').addEventListener('click', async () => {
  try {
    await api('/api/auth/guest', {});
    await signedIn();
  } catch (err) {
    $('account-status').textContent = err.message;
  }
});

/// Asks a signed-out visitor to sign in (the account forms move into the dialog), then
/// carries out `action` (see `carryOut`); `what` says what it was.
/**
 * @param {Pending} action
 * @param {string} what
 */
function needSignIn(action, what) {
  afterSignIn = action;
  $('signin-why').textContent = `To ${what}, sign in, register, or play as a guest.`;
  $('signin-slot').appendChild($('account-forms'));
  /** @type {HTMLDialogElement} */ ($('signin-dialog')).showModal();
}
$('signin-dialog').addEventListener('close', () => {
  afterSignIn = null;
  $('account-home').appendChild($('account-forms'));
});
$('signin-cancel').addEventListener('click', () => /** @type {HTMLDialogElement} */ ($('signin-dialog')).close());

/// Carries out what a visitor asked for before signing in, once the lobby socket is up.
/** @param {Pending} action */
async function carryOut(action) {
  if (action.kind === 'quick') {
    await quick(action.variant, action.time, action.inc);
  } else if (action.kind === 'command' && action.message && typeof action.message.t === 'string') {
    const reply = await command(action.message);
    status(reply.text || reply.code, reply.error);
  }
}

/** @returns {Pending | null} */
function takePending() {
  const text = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!text) return null;
  try { return JSON.parse(text); } catch (_) { return null; }
}

// Lobby socket ------------------------------------------------------------------------------
function connect() {
  if (!myName()) return;
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const socket = new WebSocket(`${proto}://${location.host}/ws/lobby`);
  lobby.socket = socket;
  socket.addEventListener('open', () => { lobby.retry = 0; document.body.classList.remove('reconnecting'); });
  socket.addEventListener('message', (e) => {
    let msg;
    try { msg = JSON.parse(e.data); } catch (_) { return; }
    handle(msg);
  });
  socket.addEventListener('close', (e) => {
    if (lobby.socket !== socket) return;
    // This session logged out (in another tab, say): show the page as signed out.
    if (e.reason === 'logged_out') { location.reload(); return; }
    lobby.socket = null;
    lobby.connected = false;
    // Commands sent on this socket will get no answer now.
    for (const resolve of lobby.pending.values()) resolve({ text: 'The connection to the lobby dropped; try again.', code: 'disconnected', error: true });
    lobby.pending.clear();
    document.body.classList.add('reconnecting');
    lobby.retry += 1;
    setTimeout(connect, Math.min(5000, 300 * 2 ** Math.min(lobby.retry, 4)));
  });
}

/// Sends a command on the lobby socket; resolves with its answer: `{ text, data }` for a
/// reply, `{ text, code, error: true }` for a refusal (the `error` event answering its `ref`),
/// and `{ text, error: true }` when there is no open socket to send it on.
/**
 * @param {import('./types.js').ClientMsg} message
 * @returns {Promise<Answer>}
 */
function command(message) {
  return new Promise((resolve) => {
    if (!lobby.socket || lobby.socket.readyState !== WebSocket.OPEN) {
      resolve({ text: myName() ? 'Not connected to the lobby yet.' : 'Sign in or play as a guest first.', error: true });
      return;
    }
    lobby.ref += 1;
    lobby.pending.set(lobby.ref, resolve);
    lobby.socket.send(JSON.stringify({ ...message, ref: lobby.ref }));
  });
}

/** @param {any} msg a lobby socket message (docs/protocol.md, "The lobby") */
function handle(msg) {
  switch (msg.t) {
    case 'lobby': {
      lobby.registered = Boolean(msg.you && msg.you.registered);
      lobby.seeks = new Map((msg.seeks || []).map((/** @type {import('./types.js').Seek} */ s) => [s.id, s]));
      lobby.challenges = new Map((msg.challenges || []).map((/** @type {import('./types.js').Challenge} */ c) => [c.id, c]));
      if (lobby.searching && !lobby.seeks.has(lobby.searching.id)) endSearch('Your search ended.');
      renderSeeks();
      renderChallenges();
      const first = !lobby.connected;
      lobby.connected = true;
      const pending = first && takePending();
      if (pending) carryOut(pending);
      break;
    }
    case 'seek_added':
      lobby.seeks.set(msg.seek.id, msg.seek);
      renderSeeks();
      if (msg.text) log(msg.text);
      break;
    case 'seek_removed':
      lobby.seeks.delete(msg.id);
      // The removal may reach the page before the reply to its own cancel.
      if (lobby.searching && lobby.searching.id === msg.id) endSearch(lobby.searching.cancelling ? 'Search cancelled.' : 'Your search ended.');
      renderSeeks();
      break;
    case 'challenge':
      lobby.challenges.set(msg.challenge.id, msg.challenge);
      renderChallenges();
      if (msg.text) log(msg.text);
      break;
    case 'challenge_removed':
      lobby.challenges.delete(msg.id);
      renderChallenges();
      break;
    case 'game_started':
      if (msg.text) log(msg.text);
      status('Game found: opening it…');
      location.href = `/game/${msg.game.game_id}`;
      break;
    case 'notice':
      log(msg.text);
      break;
    case 'reply': {
      const resolve = lobby.pending.get(msg.ref);
      lobby.pending.delete(msg.ref);
      if (resolve) resolve({ text: msg.reply, data: msg.data });
      break;
    }
    case 'error': {
      // A refused command (or one the server could not read) answers its `ref`.
      const resolve = lobby.pending.get(msg.ref);
      lobby.pending.delete(msg.ref);
      if (resolve) resolve({ text: msg.message, code: msg.code, error: true });
      else log(msg.message, 'error');
      break;
    }
    default:
      break;
  }
}

/// A status line: the one under the grid, or a dialog's.
/**
 * @param {string} text
 * @param {boolean} [error]
 * @param {HTMLElement} [line]
 */
function status(text, error, line = $('quick-status')) {
  line.textContent = text || '';
  line.classList.toggle('error', Boolean(error));
}

// Quick pairing ------------------------------------------------------------------------------
/// "5+3", or "no clock" for the lobby's `0 0`.
/**
 * @param {{ time: number, inc: number }} s
 * @returns {string}
 */
function seekClock(s) {
  return s.time === 0 && s.inc === 0 ? 'no clock' : `${s.time}+${s.inc}`;
}

function showSearching() {
  for (const cell of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll('#quick-grid button.quick'))) {
    const s = lobby.searching;
    const on = Boolean(s) && cell.dataset.variant === s.variant && Number(cell.dataset.time) === s.time && Number(cell.dataset.inc) === s.inc;
    cell.classList.toggle('searching', on);
    cell.setAttribute('aria-pressed', String(on));
  }
  $('quick-cancel').hidden = !lobby.searching;
}

/** @param {string} [text] */
function endSearch(text) {
  lobby.searching = null;
  showSearching();
  if (text) status(text);
}

/// The searches and cancels of the grid, one at a time, in the order clicked.
let quickQueue = Promise.resolve();

/// Cancels the search under way (if any): `unseek` of its seek.
async function cancelSearch() {
  const s = lobby.searching;
  if (!s) return;
  s.cancelling = true;
  const reply = await command({ t: 'unseek', id: s.id });
  // Already gone (paired or removed): the events say what became of it.
  if (reply.error && reply.code !== 'no_such_seek') {
    s.cancelling = false;
    status(reply.text, true);
    return;
  }
  if (lobby.searching === s) endSearch('Search cancelled.');
}

/// A click on a grid cell: seeks that game, replacing (or, on the same cell, ending) the
/// search under way.
/**
 * @param {string} variant
 * @param {number} time
 * @param {number} inc
 */
async function quick(variant, time, inc) {
  const s = lobby.searching;
  const same = s && s.variant === variant && s.time === time && s.inc === inc;
  if (s) await cancelSearch();
  if (same || lobby.searching) return;
  const what = `${vname(variant)} ${seekClock({ time, inc })}`;
  const rated = quickRated();
  const reply = await command({
    t: 'seek', variant, time, inc, rated, color: null, manual: false, formula: false, min: 0, max: MAX_RATING,
  });
  if (reply.error) {
    status(reply.text || reply.code, true);
    return;
  }
  if (reply.data && reply.data.kind === 'seek_posted') {
    lobby.searching = { id: reply.data.seek.id, variant, time, inc, rated };
    showSearching();
    status(`Searching for a ${rated ? 'rated' : 'casual'} game of ${what}… Click it again or Cancel to stop.`);
  } else {
    status(reply.text);
  }
}

$('quick-grid').addEventListener('click', (e) => {
  const cell = /** @type {HTMLButtonElement | null} */ (/** @type {Element} */ (e.target).closest('button.quick'));
  if (!cell) return;
  const [variant, time, inc] = [cell.dataset.variant, Number(cell.dataset.time), Number(cell.dataset.inc)];
  if (!myName()) {
    needSignIn({ kind: 'quick', variant, time, inc }, `play ${vname(variant)} ${seekClock({ time, inc })}`);
    return;
  }
  quickQueue = quickQueue.then(() => quick(variant, time, inc));
});
$('quick-cancel').addEventListener('click', () => {
  quickQueue = quickQueue.then(cancelSearch);
});

// Rated or casual: the choice only a registered player has (the server draws it for them).
// Guests play unrated, and a seek pairs only with one on the same terms, so the casual cells
// are where a guest and a registered player meet.
/** @type {HTMLInputElement | null} */
const ratedChoice = /** @type {HTMLInputElement | null} */ (document.getElementById('quick-rated'));

/// Whether a grid cell seeks a rated game now.
function quickRated() {
  return Boolean(ratedChoice && ratedChoice.checked && lobby.registered);
}

/// Says on every cell, in words and in its label, what it seeks.
function showQuickMode() {
  const rated = Boolean(ratedChoice && ratedChoice.checked);
  const grid = $('quick-grid');
  grid.dataset.rated = String(rated);
  for (const cell of /** @type {NodeListOf<HTMLButtonElement>} */ (grid.querySelectorAll('button.quick'))) {
    if (!cell.dataset.label) cell.dataset.label = cell.getAttribute('aria-label') || cell.textContent;
    cell.setAttribute('aria-label', `${cell.dataset.label} ${rated ? 'rated' : 'casual'}`);
  }
}

if (ratedChoice) {
  let stored = null;
  try { stored = localStorage.getItem(RATED_KEY); } catch (_) { /* storage refused */ }
  if (stored === 'casual') /** @type {HTMLInputElement} */ ($('quick-casual')).checked = true;
  $('quick-mode').addEventListener('change', () => {
    try { localStorage.setItem(RATED_KEY, ratedChoice.checked ? 'rated' : 'casual'); } catch (_) { /* storage refused */ }
    showQuickMode();
    // A search under way goes on with the new choice.
    quickQueue = quickQueue.then(async () => {
      const s = lobby.searching;
      if (!s || s.rated === quickRated()) return;
      await cancelSearch();
      if (!lobby.searching) await quick(s.variant, s.time, s.inc);
    });
  });
}
showQuickMode();

// Stats ---------------------------------------------------------------------------------------
async function refreshStats() {
  try {
    const stats = await api('/api/lobby/stats');
    $('players-online').textContent = String(stats.players_online);
    $('games-in-play').textContent = String(stats.games_in_play);
  } catch (_) {
    // The next round tries again; the figures shown stay.
  }
}

// Seeks ------------------------------------------------------------------------------------
function renderSeeks() {
  const seeks = [...lobby.seeks.values()].sort((a, b) => a.id - b.id);
  const me = myName();
  $('seek-list').innerHTML = seeks.map((s) => {
    const mine = s.user === me;
    const rating = s.rating == null ? 'guest' : `${s.rating}${s.provisional ? 'P' : ''}`;
    const flags = [s.rated ? 'rated' : 'casual', s.color || '', s.manual ? 'manual' : '', s.formula ? 'formula' : ''].filter(Boolean).join(', ');
    const action = mine
      ? `<button type="button" class="unseek" data-seek="${s.id}" aria-label="Remove my seek ${s.id}">Remove</button>`
      : `<button type="button" class="play" data-seek="${s.id}" data-variant="${esc(s.variant)}" aria-label="${esc(`Play ${s.user} ${vname(s.variant)} ${seekClock(s)}`)}">Play</button>`;
    return `<tr><td><a href="/player/${esc(s.user)}">${esc(s.user)}</a></td><td>${esc(rating)}</td>`
      + `<td>${esc(vname(s.variant))} ${esc(seekClock(s))} <span class="muted">${esc(flags)}</span></td>`
      + `<td>${action}</td></tr>`;
  }).join('') || '<tr><td colspan="4" class="muted">No open seeks.</td></tr>';
  drawGraph(seeks);
}

/// Answers seek `id` (`play`), or asks a signed-out visitor to sign in first.
/** @param {number} id */
async function playSeek(id) {
  const seek = lobby.seeks.get(id);
  const message = { t: 'play', seek: id };
  if (!myName()) {
    needSignIn({ kind: 'command', message }, seek ? `play ${seek.user} (${vname(seek.variant)} ${seekClock(seek)})` : 'play');
    return;
  }
  const reply = await command(message);
  status(reply.text, reply.error);
  log(reply.text, reply.error ? 'error' : '');
}

$('seek-list').addEventListener('click', async (e) => {
  const button = /** @type {HTMLButtonElement | null} */ (/** @type {Element} */ (e.target).closest('button[data-seek]'));
  if (!button) return;
  const id = Number(button.dataset.seek);
  if (button.classList.contains('play')) {
    playSeek(id);
    return;
  }
  const reply = await command({ t: 'unseek', id });
  log(reply.text, reply.error ? 'error' : '');
});

/** @param {import('./types.js').Seek[]} seeks */
function drawGraph(seeks) {
  const svg = $('seek-graph');
  const W = 400; const H = 200;
  /** @param {number} minutes */
  const x = (minutes) => 30 + (Math.log2(1 + Math.min(minutes, 120)) / Math.log2(121)) * (W - 40);
  /** @param {number} rating */
  const y = (rating) => H - 20 - ((Math.min(Math.max(rating, 800), 2400) - 800) / 1600) * (H - 30);
  let out = `<rect class="graph-bg" x="30" y="10" width="${W - 40}" height="${H - 30}"/>`;
  for (const m of [1, 3, 5, 10, 15, 30, 60]) out += `<text class="axis" x="${x(m)}" y="${H - 6}" text-anchor="middle">${m}</text>`;
  for (const r of [1000, 1500, 2000]) out += `<text class="axis" x="26" y="${y(r) + 4}" text-anchor="end">${r}</text>`;
  for (const s of seeks) {
    // Expected duration: time + 2/3 of the increment, as on FICS's graph.
    const minutes = s.time + (2 * s.inc) / 3;
    const label = `${s.user} ${s.rating ?? 'guest'} · ${vname(s.variant)} ${seekClock(s)}${s.rated ? ' rated' : ''}`;
    out += `<g class="seek-point" data-seek="${s.id}" role="button" tabindex="0" aria-label="${esc(`Play ${label}`)}"><circle class="seek-dot v-${esc(s.variant)}${s.rating == null ? ' guest' : ''}" cx="${x(minutes)}" cy="${y(s.rating ?? 1500)}" r="6"><title>${esc(label)}</title></circle></g>`;
  }
  svg.innerHTML = out;
}
/** @param {Event} e */
function graphPoint(e) {
  const point = /** @type {SVGElement | null} */ (/** @type {Element} */ (e.target).closest('[data-seek]'));
  if (point && point.dataset.seek) playSeek(Number(point.dataset.seek));
}
$('seek-graph').addEventListener('click', graphPoint);
$('seek-graph').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); graphPoint(e); }
});

/// Signed out there is no lobby socket: the seeks are read every few seconds.
async function pollSeeks() {
  try {
    const list = await api('/api/seeks');
    lobby.seeks = new Map(list.seeks.map((/** @type {import('./types.js').Seek} */ s) => [s.id, s]));
    renderSeeks();
  } catch (_) {
    // Kept as they were until the next read.
  }
}

// Challenges --------------------------------------------------------------------------------
function renderChallenges() {
  const me = myName();
  const list = [...lobby.challenges.values()];
  $('challenges-panel').hidden = list.length === 0;
  $('challenge-list').innerHTML = list.map((c) => {
    const incoming = c.to === me;
    const terms = `${vname(c.variant)} ${seekClock(c)} ${c.rated ? 'rated' : 'unrated'}${c.color ? `, ${c.from} plays ${c.color}` : ''}`;
    const buttons = incoming
      ? `<button type="button" data-challenge="${c.id}" data-do="accept" aria-label="Accept the challenge from ${esc(c.from)}">Accept</button>`
        + ` <button type="button" data-challenge="${c.id}" data-do="decline" aria-label="Decline the challenge from ${esc(c.from)}">Decline</button>`
      : `<button type="button" data-challenge="${c.id}" data-do="withdraw" aria-label="Withdraw the challenge to ${esc(c.to)}">Withdraw</button>`;
    return `<li>${incoming ? `${esc(c.from)} challenges you` : `You challenge ${esc(c.to)}`}: ${esc(terms)} ${buttons}</li>`;
  }).join('');
}
$('challenge-list').addEventListener('click', async (e) => {
  const button = /** @type {HTMLButtonElement | null} */ (/** @type {Element} */ (e.target).closest('button[data-challenge]'));
  if (!button) return;
  const reply = await command({ t: button.dataset.do, id: Number(button.dataset.challenge) });
  log(reply.text, reply.error ? 'error' : '');
});

// Dialogs ---------------------------------------------------------------------------------------
// The clock inputs' min, max and step are the server's bounds (the page fills them in); what
// they cannot say is that a clock needs some minutes or some increment: `0+0` is refused by
// the games API and means no clock to the lobby, which the "No clock" box is there to say.
/** @param {string} prefix */
function clockInputs(prefix) {
  /** @type {HTMLInputElement} */
  const untimed = $(`${prefix}-untimed`);
  /** @type {HTMLInputElement} */
  const minutes = $(`${prefix}-minutes`);
  /** @type {HTMLInputElement} */
  const increment = $(`${prefix}-increment`);
  const check = () => {
    minutes.disabled = untimed.checked;
    increment.disabled = untimed.checked;
    const empty = !untimed.checked && Number(minutes.value) === 0 && Number(increment.value) === 0
      && minutes.value !== '' && increment.value !== '';
    minutes.setCustomValidity(empty ? 'A clock needs some minutes or an increment; tick "No clock" for none.' : '');
  };
  for (const input of [untimed, minutes, increment]) input.addEventListener('input', check);
  untimed.addEventListener('change', check);
  check();
}
for (const prefix of ['seek', 'computer', 'friend']) clockInputs(prefix);

/// A games-API clock from a dialog's inputs: null for none.
/**
 * @param {string} prefix
 * @returns {{ minutes: number, increment: number } | null}
 */
function apiClock(prefix) {
  /** @type {HTMLInputElement} */
  const untimed = $(`${prefix}-untimed`);
  /** @type {HTMLInputElement} */
  const minutes = $(`${prefix}-minutes`);
  /** @type {HTMLInputElement} */
  const increment = $(`${prefix}-increment`);
  return untimed.checked ? null : { minutes: Number(minutes.value), increment: Number(increment.value) };
}

/**
 * @param {string} button
 * @param {string} dialog
 * @param {() => void} [prepare]
 */
function opens(button, dialog, prepare) {
  $(button).addEventListener('click', () => {
    if (prepare) prepare();
    /** @type {HTMLDialogElement} */ ($(dialog)).showModal();
  });
}
for (const [cancel, dialog] of [['create-cancel', 'create-dialog'], ['computer-cancel', 'computer-dialog'], ['friend-cancel', 'friend-dialog']]) {
  $(cancel).addEventListener('click', () => /** @type {HTMLDialogElement} */ ($(dialog)).close());
}

// "Create a game": every option of a FICS seek, or a challenge to one user (`match`).
opens('create-open', 'create-dialog', () => { $('seek-status').textContent = ''; });

function terms() {
  const color = /** @type {HTMLSelectElement} */ ($('seek-color')).value;
  // `0 0` is the lobby's game without a clock.
  const untimed = /** @type {HTMLInputElement} */ ($('seek-untimed')).checked;
  return {
    variant: /** @type {HTMLSelectElement} */ ($('seek-variant')).value,
    time: untimed ? 0 : Number(/** @type {HTMLInputElement} */ ($('seek-minutes')).value),
    inc: untimed ? 0 : Number(/** @type {HTMLInputElement} */ ($('seek-increment')).value),
    rated: /** @type {HTMLInputElement} */ ($('seek-rated')).checked,
    color: color === 'random' ? null : color,
  };
}

$('seek-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const line = $('seek-status');
  const opponent = /** @type {HTMLInputElement} */ ($('seek-opponent')).value.trim();
  const message = opponent
    ? { t: 'match', user: opponent, ...terms() }
    : { t: 'seek', ...terms(), manual: /** @type {HTMLInputElement} */ ($('seek-manual')).checked, formula: /** @type {HTMLInputElement} */ ($('seek-formula')).checked, min: Number(/** @type {HTMLInputElement} */ ($('seek-min')).value), max: Number(/** @type {HTMLInputElement} */ ($('seek-max')).value) };
  if (!myName()) {
    /** @type {HTMLDialogElement} */ ($('create-dialog')).close();
    needSignIn({ kind: 'command', message }, opponent ? `challenge ${opponent}` : 'post this seek');
    return;
  }
  const reply = await command(message);
  if (reply.error) {
    status(reply.text || reply.code, true, line);
    return;
  }
  status('', false, line);
  /** @type {HTMLDialogElement} */ ($('create-dialog')).close();
  status(reply.text);
  log(reply.text);
});

// "Play with the computer": `POST /api/games/computer`, then the game's page.
opens('computer-open', 'computer-dialog', () => {
  $('computer-status').textContent = '';
});
$('computer-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = {
    variant: /** @type {HTMLSelectElement} */ ($('computer-variant')).value,
    level: Number(/** @type {HTMLSelectElement} */ ($('computer-level')).value),
    clock: apiClock('computer'),
    color: /** @type {HTMLSelectElement} */ ($('computer-color')).value,
  };
  const line = $('computer-status');
  try {
    if (!myName()) await api('/api/auth/guest', {});
    const created = await api('/api/games/computer', body);
    location.href = created.url;
  } catch (err) {
    status(err.message, true, line);
  }
});

// "Challenge a friend": an open challenge (`POST /api/games`) whose link the friend opens.
opens('friend-open', 'friend-dialog', () => {
  $('friend-status').textContent = '';
  $('friend-result').hidden = true;
});
$('friend-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = { variant: /** @type {HTMLSelectElement} */ ($('friend-variant')).value, clock: apiClock('friend'), color: /** @type {HTMLSelectElement} */ ($('friend-color')).value };
  const line = $('friend-status');
  try {
    // A link needs no lobby: a visitor who is not signed in plays as a guest.
    if (!myName()) await api('/api/auth/guest', {});
    const created = await api('/api/games', body);
    const link = new URL(created.url, location.href).href;
    /** @type {HTMLInputElement} */ ($('friend-link')).value = link;
    /** @type {HTMLAnchorElement} */ ($('friend-go')).href = created.url;
    $('friend-result').hidden = false;
    status('Send this link to your friend; the game starts when they open it.', false, line);
  } catch (err) {
    status(err.message, true, line);
  }
});
$('friend-copy').addEventListener('click', async () => {
  /** @type {HTMLInputElement} */
  const input = $('friend-link');
  const line = $('friend-status');
  try {
    await navigator.clipboard.writeText(input.value);
    line.textContent = 'Link copied.';
  } catch (_) {
    // No clipboard permission: leave the link selected for the reader to copy.
    input.select();
    line.textContent = 'Select the link and copy it.';
  }
});

// Open challenge links and games in progress ---------------------------------------------------
const liveBoards = new LiveBoards($('live-boards'), vname);

/// "Your games": the signed-in player's games in progress, as the server drew them into the
/// page (pages.rs `your_games`, the same markup), redrawn here so that a game that ends or
/// starts while the lobby is open shows; hidden when there is none.
async function yourGames() {
  const me = myName();
  if (!me) return;
  const mine = await api(`/api/users/${encodeURIComponent(me)}/games?per_page=20`);
  const items = mine.games
    .filter((/** @type {import('./types.js').GameSummary} */ g) => g.status === 'active')
    .map((/** @type {import('./types.js').GameSummary} */ g) => {
      const opponent = (g.white_name || '').toLowerCase() === me.toLowerCase() ? g.black_name : g.white_name;
      return `<li><a href="/game/${esc(g.game_id)}">${esc(vname(g.variant))} against ${esc(opponent || '')}</a></li>`;
    }).join('');
  const list = $('your-games-list');
  if (list.innerHTML !== items) list.innerHTML = items; // unchanged: keep focus and the DOM
  $('your-games').hidden = !items;
}

async function refresh() {
  // Its own failure (say the player's session ended) leaves the rest of the lobby refreshing.
  yourGames().catch(() => {});
  try {
    const waiting = await api('/api/games?status=waiting&limit=50');
    $('open-list').innerHTML = waiting.games.map((/** @type {import('./types.js').GameSummary} */ g) => {
      const who = g.white_name || g.black_name || '';
      const colour = g.white_name ? 'black' : g.black_name ? 'white' : 'random';
      return `<tr><td>${who ? `<a href="/player/${esc(who)}">${esc(who)}</a>` : 'anyone'}</td>`
        + `<td>${esc(vname(g.variant))} ${esc(clockText(g.clock))}</td><td>${esc(colour)}</td>`
        + `<td><a class="join" href="/game/${esc(g.game_id)}" data-variant="${esc(g.variant)}" aria-label="${esc(`Join ${vname(g.variant)} ${clockText(g.clock)}`)}">Join</a></td></tr>`;
    }).join('') || '<tr><td colspan="4" class="muted">No open challenge links.</td></tr>';
    const live = await api('/api/games?status=active&limit=50');
    liveBoards.show(live.games);
    $('live-list').innerHTML = live.games.map((/** @type {import('./types.js').GameSummary} */ g) => `<tr><td>${esc(g.white_name)}</td><td>${esc(g.black_name)}</td>`
      + `<td>${esc(vname(g.variant))} ${esc(clockText(g.clock))}</td><td>${g.action_count}</td>`
      + `<td><a href="/game/${esc(g.game_id)}" aria-label="Watch ${esc(g.white_name)} against ${esc(g.black_name)}">Watch</a></td></tr>`).join('')
      || '<tr><td colspan="5" class="muted">No games in progress.</td></tr>';
  } catch (err) {
    $('live-list').innerHTML = `<tr><td colspan="5">${esc(err.message)}</td></tr>`;
  }
}

// Console ---------------------------------------------------------------------------------
/**
 * @param {string} text
 * @param {string} [cls]
 */
function log(text, cls) {
  if (!text) return;
  const line = document.createElement('div');
  line.className = cls || '';
  line.textContent = text;
  $('console-log').appendChild(line);
  $('console-log').scrollTop = $('console-log').scrollHeight;
}
$('console-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  /** @type {HTMLInputElement} */
  const input = $('console-input');
  const line = input.value.trim();
  if (!line) return;
  input.value = '';
  log(`fics% ${line}`, 'echo');
  const reply = await command({ t: 'command', line });
  log(reply.text || reply.code, reply.error ? 'error' : '');
});

// URL parameters ------------------------------------------------------------------------------
function fromUrl() {
  const params = new URLSearchParams(location.search);
  /** @param {string} v */
  const known = (v) => Object.prototype.hasOwnProperty.call(VARIANT_NAMES, v);
  const variant = params.get('variant');
  if (variant && known(variant)) {
    const row = document.querySelector(`.quick-row[data-variant="${CSS.escape(variant)}"]`);
    row.classList.add('highlight');
    /** @type {HTMLButtonElement} */ (row.querySelector('button.quick')).focus({ preventScroll: true });
    row.scrollIntoView({ block: 'nearest' });
  }
  const computer = params.get('computer');
  if (computer && known(computer)) {
    /** @type {HTMLSelectElement} */ ($('computer-variant')).value = computer;
    $('computer-open').click();
    return;
  }
  const opponent = params.get('challenge');
  if (opponent) {
    /** @type {HTMLInputElement} */ ($('seek-opponent')).value = opponent.slice(0, 20);
    $('create-open').click();
  }
}

renderSeeks();
fromUrl();
if (myName()) {
  connect();
} else {
  pollSeeks();
  setInterval(pollSeeks, 5000);
}
refresh();
setInterval(refresh, 5000);
// The counts came drawn into the page.
setInterval(refreshStats, 10000);
