// The game page: follows `/ws/game/{id}` (docs/protocol.md), draws the boards, runs the
// clocks locally from the server's readings, sends actions and offers, and reconnects with
// `?v=<last version>` so that missed events are replayed.

import { BoardView } from './board.js';
import { api, myName, outcomeText, formatClock, renderMoves, renderRolls, wireHeader, clockText } from './common.js';

wireHeader();
const root = document.getElementById('game');
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);

const state = {
  game: null, // the last snapshot's `game`, kept up to date by events
  v: 0,
  clockAt: 0, // performance.now() when the clock reading arrived
  socket: null,
  retry: 0,
  flipped: null,
  needSnapshot: false,
  claimAt: {}, // colour -> performance.now() from when a claim against that absent seat is allowed
  claimTimer: null,
};
window.oddboard = state; // for the browser tests and for curious people

const board = new BoardView($('boards'), {
  picker: $('picker'),
  specials: $('special-actions'),
  onAction: (action) => send({ t: 'act', ply: state.game.moves.length + 1, action }),
});

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) {
    state.socket.send(JSON.stringify(message));
  } else if (message.t !== 'ping') {
    // A click while the connection is down would otherwise vanish without a word.
    showStatus('Not connected: wait for the reconnection and try again.', true);
  }
}

function connect() {
  // Already connected or connecting (a reconnect timer and the tab coming back can both
  // call this): a second socket would keep the player present after the first one dies.
  if (state.socket) return;
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = state.game && !state.needSnapshot ? `?v=${state.v}` : '';
  state.needSnapshot = false;
  const socket = new WebSocket(`${proto}://${location.host}/ws/game/${gameId}${query}`);
  state.socket = socket;
  socket.addEventListener('open', () => {
    state.retry = 0;
    setConnection('');
    if (state.game) render(false); // input was off while disconnected
  });
  socket.addEventListener('message', (e) => {
    if (state.socket !== socket) return; // an old socket's last words
    let msg;
    try { msg = JSON.parse(e.data); } catch (_) { return; }
    handle(msg);
  });
  socket.addEventListener('close', (e) => {
    if (state.socket !== socket) return;
    // This session logged out (in another tab, say): show the page as signed out.
    if (e.reason === 'logged_out') { location.reload(); return; }
    state.socket = null;
    // Missed actions replayed on reconnect carry the clock as it was when each was played;
    // with a clock running, only a fresh snapshot tells the time left now.
    if (state.game && state.game.clock && state.game.clock.running) state.needSnapshot = true;
    if (state.game && state.game.status !== 'active' && state.game.status !== 'waiting') {
      setConnection('');
      return; // over: nothing more will come
    }
    if (state.game) board.update(state.game.rules, false); // no input while disconnected
    reconnectLater();
  });
}

function reconnectLater() {
  state.retry += 1;
  const delay = Math.min(5000, 300 * 2 ** Math.min(state.retry, 4));
  setConnection('Reconnecting…');
  setTimeout(async () => {
    if (!state.game || state.retry > 2) {
      // The live game may be gone (finished long ago, or never existed, or let go while this
      // page slept): the stored record answers, and a finished game is shown by the replay
      // page.
      try {
        const record = await api(`/api/games/${gameId}`);
        if (record.status === 'finished' || record.status === 'aborted') {
          location.replace(`/replay/${gameId}`);
          return;
        }
      } catch (_) { /* try the socket again */ }
    }
    connect();
  }, delay);
}

/// Drops the socket and reconnects for a full snapshot rather than a catch-up.
function resync() {
  state.needSnapshot = true;
  if (state.socket) state.socket.close();
  else connect();
}

function setConnection(text) {
  $('connection').textContent = text;
  document.body.classList.toggle('reconnecting', !!text);
}

function handle(msg) {
  switch (msg.t) {
    case 'snapshot':
      state.game = msg.game;
      state.v = msg.v;
      state.clockAt = performance.now();
      state.claimAt = {};
      for (const [color, ms] of Object.entries(msg.game.claim_after_ms || {})) state.claimAt[color] = performance.now() + ms;
      render(true);
      break;
    case 'batch':
      for (const m of msg.messages) handle(m);
      break;
    case 'event':
      if (msg.v <= state.v) return; // already seen
      if (msg.v !== state.v + 1) {
        send({ t: 'sync', v: state.v });
        return;
      }
      state.v = msg.v;
      applyEvent(msg);
      break;
    case 'error':
      showStatus(`${msg.message}`, true);
      break;
    default:
      break;
  }
}

/// The rules snapshot after an action event: the event's `update` carries every field of the
/// snapshot but the boards and pieces, plus the squares emptied (`removed`) and the pieces
/// placed or changed (`placed`), each replacing whatever stood on its square
/// (`Snapshot::apply` in crates/rules/src/snapshot.rs does the same).
function applyUpdate(rules, update) {
  const { removed, placed, ...fields } = update;
  const key = (p) => `${p.board} ${p.square}`;
  const replaced = new Set([...removed, ...placed].map(key));
  const pieces = rules.pieces.filter((p) => !replaced.has(key(p))).concat(placed);
  return { ...rules, ...fields, pieces };
}

function applyEvent(ev) {
  const g = state.game;
  switch (ev.kind) {
    case 'started': {
      const hadSeat = !!g.you;
      g.status = 'active';
      g.white = ev.white;
      g.black = ev.black;
      g.rules = ev.rules;
      g.you = ev.white === myName() ? 'white' : ev.black === myName() ? 'black' : g.you;
      // The creator of an open challenge learns their colour only now: face it.
      if (!hadSeat && g.you) state.flipped = g.you === 'black';
      render(true);
      break;
    }
    case 'action':
      if (ev.ply !== g.moves.length + 1) {
        // Not the next move of the game this page holds (it cannot follow from here):
        // start again from a full snapshot.
        resync();
        return;
      }
      g.moves.push({ ply: ev.ply, machine: ev.machine, human: ev.human });
      g.rules = applyUpdate(g.rules, ev.update);
      if (ev.clock) { g.clock = ev.clock; state.clockAt = performance.now(); }
      // Moving instead of answering declines the opponent's offer; the mover's own offer
      // stands, and so does an offer to a player whose action the rules forced (as the
      // server keeps them).
      if (g.draw_offer && g.draw_offer !== ev.by && !ev.forced) g.draw_offer = null;
      render(false);
      break;
    case 'draw_offered': g.draw_offer = ev.by; renderOffers(); break;
    case 'draw_declined': g.draw_offer = null; renderOffers(); showStatus(`${ev.by} declined the draw`); break;
    case 'rematch_offered': g.rematch_offer = ev.by; renderOffers(); break;
    case 'rematch_declined': g.rematch_offer = null; renderOffers(); break;
    case 'rematch':
      g.rematch_game = ev.game_id;
      renderOffers();
      if (g.you) location.href = `/game/${ev.game_id}`;
      break;
    case 'player_gone':
      g.absent = [...new Set([...(g.absent || []), ev.color])];
      state.claimAt[ev.color] = performance.now() + ev.claim_after_ms;
      renderOffers();
      break;
    case 'player_back':
      g.absent = (g.absent || []).filter((c) => c !== ev.color);
      delete state.claimAt[ev.color];
      renderOffers();
      break;
    case 'ended':
      g.status = ev.outcome && ev.outcome.reason === 'aborted' ? 'aborted' : 'finished';
      g.outcome = ev.outcome;
      if (ev.clock) { g.clock = ev.clock; state.clockAt = performance.now(); }
      g.clock = g.clock && { ...g.clock, running: null };
      g.dice_seed = ev.dice_seed;
      render(false);
      break;
    default:
      break;
  }
}

function myTurn() {
  const g = state.game;
  return g.status === 'active' && g.you && g.rules.turn === g.you && !g.rules.outcome;
}

function render(full) {
  const g = state.game;
  if (full || state.flipped === null) {
    if (state.flipped === null) state.flipped = g.you === 'black';
    board.setOrientation(state.flipped ? 'black' : 'white');
  }
  board.update(g.rules, myTurn());
  const bottom = state.flipped ? 'black' : 'white';
  const top = bottom === 'white' ? 'black' : 'white';
  $('bottom-name').textContent = `${g[bottom] || '…'} (${bottom})`;
  $('top-name').textContent = `${g[top] || '…'} (${top})`;
  $('bottom-clock').dataset.color = bottom;
  $('top-clock').dataset.color = top;
  renderMoves($('moves'), g.moves);
  const list = $('moves');
  list.scrollTop = list.scrollHeight;
  renderRolls($('rolls'), g.rules.last_action);
  $('spectators').textContent = `${g.spectators} watching`;
  root.dataset.status = g.status;
  root.dataset.ply = String(g.moves.length);
  root.dataset.turn = g.rules.turn;
  root.dataset.variant = g.variant;
  let status;
  if (g.status === 'waiting') status = `Waiting for an opponent · ${g.variant} · ${clockText(g.time_control)}`;
  else if (g.status === 'aborted') status = 'Game aborted';
  else if (g.outcome) status = outcomeText(g.outcome);
  else status = myTurn() ? 'Your move' : `${g.rules.turn === 'white' ? 'White' : 'Black'} to move`;
  showStatus(status);
  renderOffers();
  tick();
}

function showStatus(text, error) {
  const el = $('status');
  el.textContent = text;
  el.classList.toggle('error', !!error);
}

function renderOffers() {
  const g = state.game;
  const over = g.status === 'finished' || g.status === 'aborted';
  const playing = !!g.you && g.status === 'active';
  $('resign').hidden = !playing;
  $('draw').hidden = !playing;
  $('abort').hidden = !(playing && g.moves.length < 2);
  $('rematch').hidden = !(g.you && over && !g.rematch_game);
  const other = g.you === 'white' ? 'black' : 'white';
  $('draw').textContent = g.draw_offer === other ? 'Accept draw' : g.draw_offer === g.you ? 'Draw offered' : 'Offer draw';
  $('draw').setAttribute('aria-label', $('draw').textContent);
  $('rematch').textContent = g.rematch_offer === other ? 'Accept rematch' : g.rematch_offer === g.you ? 'Rematch offered' : 'Rematch';
  const offer = $('offer');
  offer.replaceChildren();
  if (playing && g.draw_offer === other) {
    offer.appendChild(button('Decline draw', () => send({ t: 'draw_decline' }), 'draw-decline'));
  }
  if (g.you && over && g.rematch_offer === other) {
    offer.appendChild(button('Decline rematch', () => send({ t: 'rematch_decline' }), 'rematch-decline'));
  }
  if (g.rematch_game) {
    const a = document.createElement('a');
    a.href = `/game/${g.rematch_game}`;
    a.textContent = 'Go to the rematch';
    offer.appendChild(a);
  }
  // Before both sides have moved the game can only be aborted, not claimed; and only once
  // the opponent has been gone for the claim delay.
  // The wait is counted down in whole seconds, as lichess does.
  clearTimeout(state.claimTimer);
  if (playing && g.moves.length >= 2 && (g.absent || []).includes(other)) {
    const wait = (state.claimAt[other] ?? 0) - performance.now();
    const note = document.createElement('span');
    note.id = 'claim-note';
    note.className = 'muted';
    offer.appendChild(note);
    if (wait <= 0) {
      note.textContent = 'Your opponent left the game.';
      offer.appendChild(button('Claim victory', () => send({ t: 'claim_victory' }), 'claim-victory'));
      offer.appendChild(button('Claim draw', () => send({ t: 'claim_draw' }), 'claim-draw'));
    } else {
      const seconds = Math.ceil(wait / 1000);
      note.textContent = `Your opponent left the game. You can claim in ${seconds} s.`;
      state.claimTimer = setTimeout(renderOffers, wait - (seconds - 1) * 1000 + 50);
    }
  }
  const join = $('join');
  join.replaceChildren();
  if (g.status === 'waiting' && !g.you && g.creator !== myName()) {
    join.appendChild(button(myName() ? 'Accept this challenge' : 'Play as guest and accept', acceptChallenge, 'accept'));
  }
  if (g.status === 'waiting' && g.creator === myName()) {
    join.appendChild(button('Cancel this challenge', () => send({ t: 'abort' }), 'cancel-challenge'));
  }
  if (over) {
    const a = document.createElement('a');
    a.href = `/replay/${gameId}`;
    a.textContent = 'Replay this game';
    a.id = 'replay-after';
    join.appendChild(a);
  }
}

function button(text, onClick, id) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  b.setAttribute('aria-label', text);
  if (id) b.id = id;
  b.addEventListener('click', onClick);
  return b;
}

async function acceptChallenge() {
  try {
    if (!myName()) await api('/api/auth/guest', {});
    await api(`/api/games/${gameId}/accept`, {});
    location.reload();
  } catch (e) {
    showStatus(e.message, true);
  }
}

// Clocks: the server's reading at `clockAt`, minus the time since for the running side.
function tick() {
  const g = state.game;
  if (!g) return;
  for (const id of ['top-clock', 'bottom-clock']) {
    const el = $(id);
    const color = el.dataset.color;
    if (!g.clock) {
      el.textContent = g.time_control ? formatClock(g.time_control.initial_ms) : '';
      el.classList.remove('running');
      continue;
    }
    let ms = g.clock[`${color}_ms`];
    const running = g.clock.running === color && g.status === 'active';
    if (running) ms -= performance.now() - state.clockAt;
    el.textContent = formatClock(ms);
    el.classList.toggle('running', running);
    el.classList.toggle('low', ms < 10000);
  }
}
function frame() {
  tick();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

$('flip').addEventListener('click', () => {
  state.flipped = !state.flipped;
  render(true);
});
$('resign').addEventListener('click', () => send({ t: 'resign' }));
$('abort').addEventListener('click', () => send({ t: 'abort' }));
$('draw').addEventListener('click', () => {
  const g = state.game;
  const other = g.you === 'white' ? 'black' : 'white';
  send({ t: g.draw_offer === other ? 'draw_accept' : 'draw_offer' });
});
$('rematch').addEventListener('click', () => {
  const g = state.game;
  const other = g.you === 'white' ? 'black' : 'white';
  send({ t: g.rematch_offer === other ? 'rematch_accept' : 'rematch_offer' });
});
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && !state.socket && state.game) connect();
});
// Keep the connection warm through proxies that close idle sockets.
setInterval(() => send({ t: 'ping' }), 25000);

connect();
