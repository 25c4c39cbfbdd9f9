// The lobby page, on the lobby socket `/ws/lobby` (docs/protocol.md, "The lobby"): the open
// seeks as a list and a graph (time across, rating up), a form that posts a seek with every
// option or challenges a named user (`match`), incoming and outgoing challenges with accept /
// decline, a console for the FICS-style text commands, and the games in progress to watch.
// A started game (from a seek, a challenge or the console) opens its page. Open challenge
// links (`POST /api/games`) are still offered for people who are not in the lobby, and a
// dialog starts a game against the computer (`POST /api/games/computer`).

import { api, myName, clockText, wireHeader, esc } from './common.js';

wireHeader();
const $ = (id) => document.getElementById(id);
const VARIANT_NAMES = {};
for (const o of document.querySelectorAll('#seek-variant option')) VARIANT_NAMES[o.value] = o.textContent;
const vname = (v) => VARIANT_NAMES[v] || v;

const lobby = { socket: null, seeks: new Map(), challenges: new Map(), retry: 0, ref: 0, pending: new Map() };
window.oddboard = { lobby };

// Account ------------------------------------------------------------------------------
function showAccount() {
  const name = myName();
  $('account-forms').hidden = !!name;
  $('account-status').textContent = name ? `Signed in as ${name}.` : 'Sign in, register, or play as a guest.';
}
showAccount();

$('login-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const form = e.target;
  const action = e.submitter && e.submitter.value === 'register' ? 'register' : 'login';
  try {
    await api(`/api/auth/${action}`, { username: form.username.value, password: form.password.value });
    location.reload();
  } catch (err) {
    $('account-status').textContent = err.message;
  }
});
$('guest-button').addEventListener('click', async () => {
  try {
    await api('/api/auth/guest', {});
    location.reload();
  } catch (err) {
    $('account-status').textContent = err.message;
  }
});

// Lobby socket -----------------------------------------------------------------------------
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
    // Commands sent on this socket will get no answer now.
    for (const resolve of lobby.pending.values()) resolve({ text: 'The connection to the lobby dropped; try again.', code: 'disconnected', error: true });
    lobby.pending.clear();
    document.body.classList.add('reconnecting');
    lobby.retry += 1;
    setTimeout(connect, Math.min(5000, 300 * 2 ** Math.min(lobby.retry, 4)));
  });
}

/// Sends a command on the lobby socket; resolves with its answer: `{ text, data }` for a
/// reply, `{ text, code, error: true }` for a refusal (the `error` event answering its `ref`).
function command(message) {
  return new Promise((resolve, reject) => {
    if (!lobby.socket || lobby.socket.readyState !== WebSocket.OPEN) {
      reject(new Error(myName() ? 'Not connected to the lobby yet.' : 'Sign in or play as a guest first.'));
      return;
    }
    lobby.ref += 1;
    lobby.pending.set(lobby.ref, resolve);
    lobby.socket.send(JSON.stringify({ ...message, ref: lobby.ref }));
  });
}

function handle(msg) {
  switch (msg.t) {
    case 'lobby':
      lobby.seeks = new Map((msg.seeks || []).map((s) => [s.id, s]));
      lobby.challenges = new Map((msg.challenges || []).map((c) => [c.id, c]));
      renderSeeks();
      renderChallenges();
      break;
    case 'seek_added':
      lobby.seeks.set(msg.seek.id, msg.seek);
      renderSeeks();
      if (msg.text) log(msg.text);
      break;
    case 'seek_removed':
      lobby.seeks.delete(msg.id);
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

// Seeks ------------------------------------------------------------------------------------
/// "5+3", or "no clock" for the lobby's `0 0`.
function seekClock(s) {
  return s.time === 0 && s.inc === 0 ? 'no clock' : `${s.time}+${s.inc}`;
}

function renderSeeks() {
  const seeks = [...lobby.seeks.values()].sort((a, b) => a.id - b.id);
  const me = myName();
  $('seek-list').innerHTML = seeks.map((s) => {
    const mine = s.user === me;
    const rating = s.rating == null ? 'guest' : `${s.rating}${s.provisional ? 'P' : ''}`;
    const flags = [s.rated ? 'rated' : 'unrated', s.manual ? 'manual' : '', s.formula ? 'formula' : ''].filter(Boolean).join(', ');
    const action = mine
      ? `<button type="button" class="unseek" data-seek="${s.id}" aria-label="Remove my seek ${s.id}">Remove</button>`
      : `<button type="button" class="play" data-seek="${s.id}" data-variant="${esc(s.variant)}" aria-label="${esc(`Play ${s.user} ${vname(s.variant)} ${seekClock(s)}`)}">Play</button>`;
    return `<tr><td>${s.id}. <a href="/player/${esc(s.user)}">${esc(s.user)}</a></td><td>${esc(rating)}</td>`
      + `<td>${esc(vname(s.variant))}</td><td>${esc(seekClock(s))} <span class="muted">${esc(flags)}</span></td>`
      + `<td>${esc(s.color || 'any')}</td><td>${action}</td></tr>`;
  }).join('') || '<tr><td colspan="6" class="muted">No open seeks.</td></tr>';
  drawGraph(seeks);
}

$('seek-list').addEventListener('click', async (e) => {
  const button = e.target.closest('button[data-seek]');
  if (!button) return;
  const id = Number(button.dataset.seek);
  const reply = await command(button.classList.contains('play') ? { t: 'play', seek: id } : { t: 'unseek', id }).catch((err) => ({ text: err.message, error: true }));
  log(reply.text, reply.error ? 'error' : '');
});

function drawGraph(seeks) {
  const svg = $('seek-graph');
  const W = 400; const H = 200;
  const x = (minutes) => 30 + (Math.log2(1 + Math.min(minutes, 120)) / Math.log2(121)) * (W - 40);
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
$('seek-graph').addEventListener('click', async (e) => {
  const point = e.target.closest('[data-seek]');
  if (!point) return;
  const reply = await command({ t: 'play', seek: Number(point.dataset.seek) }).catch((err) => ({ text: err.message, error: true }));
  log(reply.text, reply.error ? 'error' : '');
});

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
  const button = e.target.closest('button[data-challenge]');
  if (!button) return;
  const reply = await command({ t: button.dataset.do, id: Number(button.dataset.challenge) }).catch((err) => ({ text: err.message, error: true }));
  log(reply.text, reply.error ? 'error' : '');
});

// The seek / challenge form ---------------------------------------------------------------------
// The clock inputs' min, max and step are the server's bounds (the page fills them in); what
// they cannot say is that a clock needs some minutes or some increment: `0+0` is refused by
// the games API and means no clock to the lobby, which is the "No clock" box's to say.
function clockInputs(prefix) {
  const untimed = $(`${prefix}-untimed`);
  const minutes = $(`${prefix}-minutes`);
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
clockInputs('seek');

function terms() {
  const color = $('seek-color').value;
  // `0 0` is the lobby's game without a clock.
  const untimed = $('seek-untimed').checked;
  return {
    variant: $('seek-variant').value,
    time: untimed ? 0 : Number($('seek-minutes').value),
    inc: untimed ? 0 : Number($('seek-increment').value),
    rated: $('seek-rated').checked,
    color: color === 'random' ? null : color,
  };
}

$('seek-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const status = $('seek-status');
  try {
    if (!myName()) {
      status.textContent = 'Sign in or play as a guest first.';
      return;
    }
    const opponent = $('seek-opponent').value.trim();
    const message = opponent
      ? { t: 'match', user: opponent, ...terms() }
      : { t: 'seek', ...terms(), manual: $('seek-manual').checked, formula: $('seek-formula').checked, min: Number($('seek-min').value), max: Number($('seek-max').value) };
    const reply = await command(message);
    status.textContent = reply.text || (reply.error ? reply.code : 'Done.');
    status.classList.toggle('error', Boolean(reply.error));
  } catch (err) {
    status.textContent = err.message;
  }
});

$('link-submit').addEventListener('click', async () => {
  // Not a submit button: the form's constraints are checked here.
  if (!$('seek-form').reportValidity()) return;
  const untimed = $('seek-untimed').checked;
  const body = {
    variant: $('seek-variant').value,
    clock: untimed ? null : { minutes: Number($('seek-minutes').value), increment: Number($('seek-increment').value) },
    color: $('seek-color').value,
  };
  try {
    if (!myName()) await api('/api/auth/guest', {});
    const created = await api('/api/games', body);
    location.href = created.url;
  } catch (err) {
    $('seek-status').textContent = err.message;
  }
});

// Play the computer: a dialog posting `POST /api/games/computer`, then the game's page.
const computerDialog = $('computer-dialog');
$('computer-open').addEventListener('click', () => {
  $('computer-variant').value = $('seek-variant').value;
  $('computer-status').textContent = '';
  computerDialog.showModal();
});
$('computer-cancel').addEventListener('click', () => computerDialog.close());
clockInputs('computer');
$('computer-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const body = {
    variant: $('computer-variant').value,
    level: Number($('computer-level').value),
    clock: $('computer-untimed').checked ? null
      : { minutes: Number($('computer-minutes').value), increment: Number($('computer-increment').value) },
    color: $('computer-color').value,
  };
  const status = $('computer-status');
  try {
    if (!myName()) await api('/api/auth/guest', {});
    const created = await api('/api/games/computer', body);
    location.href = created.url;
  } catch (err) {
    status.textContent = err.message;
    status.classList.add('error');
  }
});

// Open challenge links and games in progress ---------------------------------------------------
async function refresh() {
  try {
    const waiting = await api('/api/games?status=waiting&limit=50');
    $('open-list').innerHTML = waiting.games.map((g) => {
      const who = g.white_name || g.black_name || '';
      const colour = g.white_name ? 'black' : g.black_name ? 'white' : 'random';
      return `<tr><td>${who ? `<a href="/player/${esc(who)}">${esc(who)}</a>` : 'anyone'}</td>`
        + `<td>${esc(vname(g.variant))}</td><td>${esc(clockText(g.clock))}</td><td>${esc(colour)}</td>`
        + `<td><a class="join" href="/game/${esc(g.game_id)}" data-variant="${esc(g.variant)}" aria-label="${esc(`Join ${vname(g.variant)} ${clockText(g.clock)}`)}">Join</a></td></tr>`;
    }).join('') || '<tr><td colspan="5" class="muted">No open challenge links.</td></tr>';
    const live = await api('/api/games?status=active&limit=50');
    $('live-list').innerHTML = live.games.map((g) => `<tr><td>${esc(g.white_name)}</td><td>${esc(g.black_name)}</td>`
      + `<td>${esc(vname(g.variant))}</td><td>${esc(clockText(g.clock))}</td><td>${g.action_count}</td>`
      + `<td><a href="/game/${esc(g.game_id)}" aria-label="Watch ${esc(g.white_name)} against ${esc(g.black_name)}">Watch</a></td></tr>`).join('')
      || '<tr><td colspan="6" class="muted">No games in progress.</td></tr>';
  } catch (err) {
    $('live-list').innerHTML = `<tr><td colspan="6">${esc(err.message)}</td></tr>`;
  }
}

// Console ---------------------------------------------------------------------------------
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
  const input = $('console-input');
  const line = input.value.trim();
  if (!line) return;
  input.value = '';
  log(`fics% ${line}`, 'echo');
  try {
    const reply = await command({ t: 'command', line });
    log(reply.text || reply.code, reply.error ? 'error' : '');
  } catch (err) {
    log(err.message, 'error');
  }
});

renderSeeks();
connect();
refresh();
setInterval(refresh, 4000);
