// The lobby page: sign in / register / guest, create a game (an open challenge), the open
// games as a list and a graph (time across, rating up), the games in progress to watch, and
// a console for the FICS-style text commands (`POST /api/command`).

import { api, myName, clockText, wireHeader, esc } from './common.js';

wireHeader();
const $ = (id) => document.getElementById(id);
const VARIANT_NAMES = {};
for (const o of document.querySelectorAll('#seek-variant option')) VARIANT_NAMES[o.value] = o.textContent;

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

// Creating a game ----------------------------------------------------------------------------
$('seek-untimed').addEventListener('change', (e) => {
  $('seek-minutes').disabled = e.target.checked;
  $('seek-increment').disabled = e.target.checked;
});
$('seek-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const untimed = $('seek-untimed').checked;
  const body = {
    variant: $('seek-variant').value,
    clock: untimed ? null : { minutes: Number($('seek-minutes').value), increment: Number($('seek-increment').value) },
    color: $('seek-color').value,
  };
  try {
    if (!myName()) await api('/api/auth/guest', {});
    const opponent = $('seek-opponent').value.trim();
    const created = await api('/api/games', body);
    if (opponent) {
      // A direct challenge: the link goes to the named player through the console's `tell`
      // when the lobby has one; the challenge itself is the game's link.
      $('seek-status').textContent = `Challenge created for ${opponent}: send them ${location.origin}${created.url}`;
    }
    location.href = created.url;
  } catch (err) {
    $('seek-status').textContent = err.message;
  }
});

// Open games and games in progress ----------------------------------------------------------
function timeOf(game) {
  return game.clock ? game.clock.initial_ms / 60000 + (40 * game.clock.increment_ms) / 60000 : 60;
}

function drawGraph(games) {
  const svg = $('seek-graph');
  const W = 400; const H = 200;
  const x = (minutes) => 30 + (Math.log2(1 + Math.min(minutes, 120)) / Math.log2(121)) * (W - 40);
  const y = (rating) => H - 20 - ((Math.min(Math.max(rating, 800), 2400) - 800) / 1600) * (H - 30);
  let out = `<rect class="graph-bg" x="30" y="10" width="${W - 40}" height="${H - 30}"/>`;
  for (const m of [1, 3, 5, 10, 15, 30, 60]) out += `<text class="axis" x="${x(m)}" y="${H - 6}" text-anchor="middle">${m}</text>`;
  for (const r of [1000, 1500, 2000]) out += `<text class="axis" x="26" y="${y(r) + 4}" text-anchor="end">${r}</text>`;
  for (const g of games) {
    const rating = g.rating || 1500;
    out += `<a href="/game/${esc(g.game_id)}" aria-label="${esc(`${VARIANT_NAMES[g.variant] || g.variant} ${clockText(g.clock)}`)}"><circle class="seek-dot v-${esc(g.variant)}" cx="${x(timeOf(g))}" cy="${y(rating)}" r="6"><title>${esc(`${g.white_name || g.black_name || 'open'} · ${VARIANT_NAMES[g.variant] || g.variant} · ${clockText(g.clock)}`)}</title></circle></a>`;
  }
  svg.innerHTML = out;
}

async function refresh() {
  try {
    const waiting = await api('/api/games?status=waiting&limit=50');
    const rows = waiting.games.map((g) => {
      const who = g.white_name || g.black_name || '';
      const colour = g.white_name ? 'black' : g.black_name ? 'white' : 'random';
      return `<tr><td>${who ? `<a href="/player/${esc(who)}">${esc(who)}</a>` : 'anyone'}</td><td>${esc(g.rating || '')}</td>`
        + `<td>${esc(VARIANT_NAMES[g.variant] || g.variant)}</td><td>${esc(clockText(g.clock))}</td><td>${esc(colour)}</td>`
        + `<td><a class="join" href="/game/${esc(g.game_id)}" data-variant="${esc(g.variant)}" aria-label="${esc(`Join ${VARIANT_NAMES[g.variant] || g.variant} ${clockText(g.clock)}`)}">Join</a></td></tr>`;
    });
    $('seek-list').innerHTML = rows.join('') || '<tr><td colspan="6" class="muted">No open games.</td></tr>';
    drawGraph(waiting.games);
    const live = await api('/api/games?status=active&limit=50');
    $('live-list').innerHTML = live.games.map((g) => `<tr><td>${esc(g.white_name)}</td><td>${esc(g.black_name)}</td>`
      + `<td>${esc(VARIANT_NAMES[g.variant] || g.variant)}</td><td>${esc(clockText(g.clock))}</td><td>${g.action_count}</td>`
      + `<td><a href="/game/${esc(g.game_id)}" aria-label="Watch ${esc(g.white_name)} against ${esc(g.black_name)}">Watch</a></td></tr>`).join('')
      || '<tr><td colspan="6" class="muted">No games in progress.</td></tr>';
  } catch (err) {
    $('seek-list').innerHTML = `<tr><td colspan="6">${esc(err.message)}</td></tr>`;
  }
}
refresh();
setInterval(refresh, 4000);

// Console ---------------------------------------------------------------------------------
function log(text, cls) {
  const line = document.createElement('div');
  line.className = cls || '';
  line.textContent = text;
  $('console-log').appendChild(line);
  $('console-log').scrollTop = $('console-log').scrollHeight;
}
$('console-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const input = $('console-input');
  const command = input.value.trim();
  if (!command) return;
  input.value = '';
  log(`> ${command}`, 'echo');
  try {
    const reply = await api('/api/command', { command });
    log(typeof reply === 'string' ? reply : (reply.reply ?? reply.text ?? JSON.stringify(reply)));
  } catch (err) {
    log(err.status === 404 || err.status === 405 ? 'The command console is not available on this server yet.' : err.message, 'error');
  }
});

