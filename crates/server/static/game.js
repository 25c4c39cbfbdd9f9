// The game page: follows `/ws/game/{id}` (docs/protocol.md), draws the boards, runs the
// clocks locally from the server's readings, sends actions and offers, and reconnects with
// `?v=<last version>` so that missed events are replayed. The parts of the page that are
// more than the board and the socket live in `static/game/`: sounds, the tab title and
// notifications, captured material, ratings and the result banner, chat, browsing earlier
// positions, confirmations, the rules link and newcomers' hints.

import { BoardView } from './board.js';
import { applyUpdate } from './miniboard.js';
import { api, myName, outcomeText, formatClock, renderMoves, wireHeader, clockText } from './common.js';
import { play as playSound, wireSoundToggle } from './game/sound.js';
import { notify, setTurnTitle, wireNotifyToggle } from './game/notify.js';
import { captured, renderCaptured } from './game/material.js';
import { ratingText, sideToMove, markTurn } from './game/players.js';
import { ResultBanner } from './game/banner.js';
import { ChatPanel } from './game/chat.js';
import { ChallengePanel, seatName } from './game/challenge.js';
import { History } from './game/history.js';
import { confirmButton } from './game/confirm.js';
import { Hints } from './game/hints.js';
import { DicePanel, annotateMoves, lastRolled, rollSound } from './game/dice.js';
import { renderStrip } from './game/strip.js';
import { $ } from './dom.js';
import { showToTests } from './test-hook.js';

wireHeader();
const root = $('game');
const gameId = root.dataset.gameId;
/** @typedef {import('./types.js').Color} Color */
/** @typedef {import('./types.js').GameView} GameView */
/** @typedef {import('./types.js').GameEvent} GameEvent */
/** @typedef {import('./board.js').Premove} Premove */

/** @param {Color} color @returns {Color} */
const other = (color) => (color === 'white' ? 'black' : 'white');

/**
 * The page's state: the game as the last snapshot and the events since say, and the
 * connection. The browser tests read it as `window.oddboard` (test-hook.js).
 * @type {{
 *   game: GameView | null, v: number, clockAt: number, socket: WebSocket | null, retry: number,
 *   flipped: boolean | null, needSnapshot: boolean, claimAt: Partial<Record<Color, number>>,
 *   claimTimer: ReturnType<typeof setTimeout> | undefined, premove: Premove | null,
 *   lowTime: boolean, missing: boolean, history: History,
 * }}
 */
const state = {
  game: null, // the last snapshot's `game`, kept up to date by events
  v: 0,
  clockAt: 0, // performance.now() when the clock reading arrived
  socket: null,
  retry: 0,
  flipped: null,
  needSnapshot: false,
  claimAt: {}, // colour -> performance.now() from when a claim against that absent seat is allowed
  claimTimer: undefined,
  premove: null, // {board, from, to}: the one premove, played when the turn comes
  lowTime: false, // the low-time sound was played for the current low stretch
  missing: false,
  history: new History(gameId),
};
showToTests('oddboard', state);

const board = new BoardView($('boards'), {
  picker: $('picker'),
  specials: $('special-actions'),
  onAction: (action) => act(action),
  onPremove: (p) => setPremove(p),
  onPremoveCancel: () => setPremove(null),
});
// The premove methods come with the board's premove support (docs: the board API of issue 39).
const premoveSupported = typeof board.setPremoveEnabled === 'function';

const chat = new ChatPanel({
  section: $('chat'), title: $('chat-title'), lines: $('chat-lines'), form: $('chat-form'),
  input: $('chat-input'), toggle: $('chat-toggle'), mute: $('mute-opponent'), note: $('chat-note'),
}, (message) => send(message));
const dice = new DicePanel($('rolls'));
const hints = new Hints({ region: $('hints'), link: $('rules-link') }, gameId, api, myName);
const challenge = new ChallengePanel({
  section: $('challenge'), heading: $('challenge-title'), terms: $('challenge-terms'), share: $('challenge-share'),
  link: /** @type {HTMLInputElement} */ ($('challenge-link')), copy: /** @type {HTMLButtonElement} */ ($('challenge-copy')), note: $('challenge-note'),
}, api);
const banner = new ResultBanner({
  section: $('result-banner'), title: $('result-title'), reason: $('result-reason'),
  changes: $('rating-changes'), newOpponent: $('new-opponent'),
}, gameId);

/** @param {string} action */
function act(action) {
  send({ t: 'act', ply: state.game.moves.length + 1, action });
}

/** @param {import('./types.js').ClientMsg} message */
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
  if (state.socket || state.missing) return;
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
    if (state.game) board.update(state.game.rules, false, { animate: false }); // no input while disconnected
    // Never connected: the game may not exist (the upgrade is refused with a 404). Ask the
    // record at once rather than showing "Reconnecting…" forever.
    if (!state.game) checkRecord().then((gone) => { if (!gone) reconnectLater(); });
    else reconnectLater();
  });
}

/// Asks the stored record whether the game is still live. Shows the missing-game panel for
/// an unknown game and opens the replay of a game that is over; true when it did either.
/** @returns {Promise<boolean>} */
async function checkRecord() {
  try {
    const record = await api(`/api/games/${gameId}`);
    if (record.status === 'finished' || record.status === 'aborted') {
      location.replace(`/replay/${gameId}`);
      return true;
    }
  } catch (e) {
    if (e.status === 404) {
      showMissing();
      return true;
    }
  }
  return false;
}

function reconnectLater() {
  state.retry += 1;
  const delay = Math.min(5000, 300 * 2 ** Math.min(state.retry, 4));
  setConnection('Reconnecting…');
  setTimeout(async () => {
    // The live game may be gone (finished long ago, or let go while this page slept): the
    // stored record answers, and a finished game is shown by the replay page.
    if ((!state.game || state.retry > 2) && await checkRecord()) return;
    connect();
  }, delay);
}

/// A game that does not exist: say so, with a link home, and no buttons to act on it.
function showMissing() {
  state.missing = true;
  setConnection('');
  root.dataset.status = 'missing';
  for (const part of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll('.gp-board, .gp-side, #game-title'))) part.hidden = true;
  $('missing').hidden = false;
  document.title = 'No such game · Oddboard';
}

/// Drops the socket and reconnects for a full snapshot rather than a catch-up.
function resync() {
  state.needSnapshot = true;
  if (state.socket) state.socket.close();
  else connect();
}

/** @param {string} text */
function setConnection(text) {
  $('connection').textContent = text;
  document.body.classList.toggle('reconnecting', !!text);
}

/** @param {import('./types.js').GameServerMsg} msg */
function handle(msg) {
  switch (msg.t) {
    case 'snapshot':
      onSnapshot(msg);
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
    case 'chat':
      chat.add(msg);
      break;
    case 'spectators':
      if (state.game) state.game.spectators = msg.n;
      renderSpectators();
      break;
    case 'error':
      // Chat refusals (too long, too fast, sign in first) belong under the chat.
      if (/^chat_|_to_chat$/.test(msg.code || '')) chat.refused(msg.message);
      else showStatus(`${msg.message}`, true);
      break;
    default:
      break;
  }
}

/** @param {{ v: number, game: GameView }} msg */
function onSnapshot(msg) {
  const first = !state.game;
  const g = msg.game;
  state.game = g;
  state.v = msg.v;
  state.clockAt = performance.now();
  state.claimAt = {};
  for (const [color, ms] of Object.entries(g.claim_after_ms || {})) state.claimAt[/** @type {Color} */ (color)] = performance.now() + ms;
  const start = state.history.start();
  state.history.reset(g.moves, g.rules);
  // The same game's start position stays what it was (a resync keeps it).
  if (start && g.moves.length) state.history.record(0, start);
  chat.reset(g, myName());
  if (first && g.status === 'active' && g.you && g.moves.length === 0) playSound('start');
  const filling = state.history.fill(g.moves);
  if (first && rolledBefore(g)) {
    // The roll panel shows the last roll, here in a position before the live one, which comes
    // with the game's earlier positions: drawn before them, the panel would appear a moment
    // later above the result banner and the buttons and push them down. One request later,
    // the page is drawn whole.
    filling.then(() => render(true));
    return;
  }
  render(true);
  filling.then((filled) => { if (filled) render(false); });
}

/// Whether the roll panel of a Davey Drehs game opened after its start needs a position the
/// page does not have yet: the live position's last action rolled nothing.
/** @param {import('./types.js').GameView} g */
function rolledBefore(g) {
  return g.variant === 'drehs' && g.moves.length > 0 && !(g.rules.last_action?.rolls || []).length
    && !state.history.start();
}

/** @param {import('./types.js').ClockView | null} clock */
function setClock(clock) {
  if (clock) { state.game.clock = clock; state.clockAt = performance.now(); }
}

/** @param {GameEvent} ev */
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
      state.history.reset(g.moves, ev.rules);
      chat.reset(g, myName());
      playSound('start');
      if (g.you) notify('Your game started', `${g.white} – ${g.black}`);
      render(true);
      break;
    }
    case 'action':
      onAction(ev);
      break;
    case 'draw_offered': g.draw_offer = ev.by; renderOffers(); break;
    case 'draw_declined': g.draw_offer = null; renderOffers(); showStatus(`${ev.by} declined the draw`); break;
    case 'takeback_offered': g.takeback_offer = ev.by; renderOffers(); break;
    case 'takeback_declined':
      g.takeback_offer = null;
      renderOffers();
      showStatus(`${ev.by === 'white' ? 'White' : 'Black'} declined the takeback`);
      break;
    case 'takeback':
      // `plies` moves come off the list and `rules` is the position as it is now.
      g.moves.splice(Math.max(0, g.moves.length - ev.plies), ev.plies);
      g.rules = ev.rules;
      setClock(ev.clock);
      g.takeback_offer = null;
      setPremove(null);
      state.history.truncate(g.moves.length);
      state.history.record(g.moves.length, ev.rules);
      state.history.view = null;
      render(false, { animate: false });
      showStatus(`Takeback: ${ev.plies} ${ev.plies === 1 ? 'move' : 'moves'} taken back`);
      break;
    case 'more_time':
      setClock(ev.clock);
      if (g.clock) state.lowTime = false;
      showStatus(`${ev.by === 'white' ? 'White' : 'Black'} gave ${ev.to === 'white' ? 'White' : 'Black'} ${Math.round(ev.ms / 1000)} seconds`);
      break;
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
      setClock(ev.clock);
      g.clock = g.clock && { ...g.clock, running: null };
      g.dice_seed = ev.dice_seed;
      setPremove(null);
      playSound('end');
      render(false);
      break;
    default:
      break;
  }
}

/** @param {Extract<GameEvent, { kind: 'action' }>} ev */
function onAction(ev) {
  const g = state.game;
  if (ev.ply !== g.moves.length + 1) {
    // Not the next move of the game this page holds (it cannot follow from here): start
    // again from a full snapshot.
    resync();
    return;
  }
  const before = g.rules.pieces.filter((p) => p.color !== ev.by).length;
  g.moves.push({ ply: ev.ply, machine: ev.machine, human: ev.human });
  g.rules = applyUpdate(g.rules, ev.update);
  setClock(ev.clock);
  // Moving instead of answering declines the opponent's offer; the mover's own offer
  // stands, and so does an offer to a player whose action the rules forced (as the server
  // keeps them).
  if (g.draw_offer && g.draw_offer !== ev.by && !ev.forced) g.draw_offer = null;
  if (g.takeback_offer && g.takeback_offer !== ev.by && !ev.forced) g.takeback_offer = null;
  state.history.record(ev.ply, g.rules);
  state.history.view = null; // a new move brings the board back to the game
  const after = g.rules.pieces.filter((p) => p.color !== ev.by).length;
  // A roll sounds as it went (Davey Drehs), a hit unlike a miss.
  const rolled = rollSound(g.rules.last_action);
  if ((g.rules.check || []).length) playSound('check');
  else if (rolled) playSound(rolled);
  else if (after < before || /x/.test(ev.human)) playSound('capture');
  else playSound('move');
  $('move-input').classList.remove('error');
  render(false);
  if (myTurn()) {
    if (!playPremove()) notify('Your turn', `${ev.human} was played`);
  }
}

/** @returns {boolean} */
function playing() {
  const g = state.game;
  return !!g && !!g.you && g.status === 'active';
}

/** @returns {boolean} */
function myTurn() {
  return playing() && state.game.rules.turn === state.game.you && !state.game.rules.outcome;
}

/// The position on the board: the game's, or the earlier one being browsed.
/** @returns {import('./types.js').Snapshot} */
function shownRules() {
  const view = state.history.view;
  return (view !== null && state.history.at(view)) || state.game.rules;
}

// Premove ------------------------------------------------------------------------------------

/** @param {Premove | null} p */
function setPremove(p) {
  state.premove = p;
  if (premoveSupported) board.showPremove(p);
  root.dataset.premove = p ? `${p.from}${p.to}` : '';
}

/// Plays the premove now that the turn has come, when the position allows an action from its
/// square to its target; drops it otherwise.
/** @returns {boolean} whether it was played */
function playPremove() {
  const p = state.premove;
  if (!p || !premoveSupported) return false;
  setPremove(null);
  // The board lists the most ordinary action first (a plain move before a teleport, a queen
  // before the other promotions).
  const choice = (board.premoveActions(p, state.game.rules) || [])[0];
  if (!choice) return false;
  act(choice);
  return true;
}

// Rendering -----------------------------------------------------------------------------------

/// Sizes the board's box for the variant: how much wider the side boards make it (Duel),
/// and the main board's shape, so that the style sheet gives the board all the room there is.
/** @param {import('./types.js').Snapshot} rules */
function sizeBoards(rules) {
  const [main, ...side] = rules.boards;
  const sideFiles = side.reduce((n, b) => Math.max(n, b.files), 0);
  root.style.setProperty('--side-frac', String(sideFiles / main.files));
  root.style.setProperty('--main-ratio', String(main.ranks / main.files));
  // The gap between the main board and a side board, which a lone board does not lose.
  root.style.setProperty('--side-gap', side.length ? '8px' : '0px');
  root.dataset.boards = String(rules.boards.length);
}

/// The height the boards' captions and legends take beside the squares (the tallest board's),
/// measured in the same task as the drawing, so that the board is sized once before it is
/// painted.
function measureExtras() {
  let extra = 0;
  for (const wrap of $('boards').children) {
    let h = 0;
    for (const child of wrap.children) {
      if (child.tagName.toLowerCase() === 'svg') continue;
      const style = getComputedStyle(child);
      h += /** @type {HTMLElement} */ (child).offsetHeight + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
    }
    extra = Math.max(extra, h);
  }
  const value = `${extra}px`;
  if (root.style.getPropertyValue('--board-extra') !== value) root.style.setProperty('--board-extra', value);
}

/**
 * @param {boolean} full whether to set the orientation again
 * @param {{ animate?: boolean }} [options]
 */
function render(full, { animate = true } = {}) {
  const g = state.game;
  if (full || state.flipped === null) {
    if (state.flipped === null) state.flipped = g.you === 'black';
    board.setOrientation(state.flipped ? 'black' : 'white');
  }
  const view = state.history.view;
  const shown = shownRules();
  sizeBoards(g.rules);
  if (premoveSupported) {
    board.setPlayer(g.you || null);
    board.setPremoveEnabled(playing() && !myTurn() && view === null);
  }
  board.update(shown, view === null && myTurn(), { animate: animate && view === null });
  measureExtras();
  if (premoveSupported) board.showPremove(state.premove);
  renderPlayers();
  renderMoveList();
  // The last roll stays until the next one, also across moves that roll nothing.
  const rolled = lastRolled((ply) => state.history.at(ply), view ?? g.moves.length);
  dice.show(rolled, !full && view === null && rolled?.ply === g.moves.length);
  renderSpectators();
  root.dataset.status = g.status;
  root.dataset.ply = String(g.moves.length);
  root.dataset.turn = g.rules.turn;
  root.dataset.variant = g.variant;
  root.dataset.view = view === null ? 'live' : String(view);
  $('game-title').textContent = `${g.white || '…'} – ${g.black || '…'} · ${g.variant}`;
  $('back-to-game').hidden = view === null;
  $('move-form').hidden = !playing();
  let status;
  if (g.status === 'waiting') status = `Waiting for an opponent · ${g.variant} · ${clockText(g.time_control)}`;
  else if (g.status === 'aborted') status = 'Game aborted';
  else if (g.outcome) status = outcomeText(g.outcome);
  else status = myTurn() ? 'Your move' : `${g.rules.turn === 'white' ? 'White' : 'Black'} to move`;
  if (view !== null) status += ` · showing the position after ply ${view}`;
  showStatus(status);
  setTurnTitle(myTurn());
  banner.show(g, renderPlayers);
  renderOffers();
  hints.update(g, view === null);
  challenge.show(g, myName());
  tick();
}

function renderPlayers() {
  const g = state.game;
  const bottom = state.flipped ? 'black' : 'white';
  const top = other(bottom);
  const shown = shownRules();
  const start = state.history.start();
  const taken = captured(start && start.pieces, shown.pieces);
  const toMove = sideToMove(g);
  for (const [place, color] of /** @type {[string, Color][]} */ ([['top', top], ['bottom', bottom]])) {
    const name = g[color];
    $(`${place}-name`).textContent = seatName(g, color, place === 'bottom', myName());
    markTurn($(`${place}-bar`), $(`${place}-turn`), color === toMove);
    // An untimed game has no clock to show: no empty box where it would be.
    $(`${place}-clock`).hidden = !g.time_control;
    $(`${place}-clock`).dataset.color = color;
    $(`${place}-clock`).setAttribute('aria-label', `${color === 'white' ? 'White' : 'Black'}'s clock`);
    // What this side has taken: pieces of the other colour.
    renderCaptured($(`${place}-captured`), taken[color], other(color));
    const rating = $(`${place}-rating`);
    rating.dataset.name = name || '';
    ratingText(name, g.variant).then((text) => {
      if (rating.dataset.name === (name || '')) rating.textContent = text;
    });
  }
}

function renderMoveList() {
  const g = state.game;
  const list = $('moves');
  const view = state.history.view;
  renderMoves(list, g.moves, view === null ? g.moves.length : view, showPly);
  annotateMoves(list, (ply) => state.history.at(ply));
  renderStrip($('move-strip'), g.moves, view === null ? g.moves.length : view, showPly);
  if (view === null) {
    list.scrollTop = list.scrollHeight;
  } else {
    const current = /** @type {HTMLElement | null} */ (list.querySelector('.current'));
    if (current) list.scrollTop = current.offsetTop - list.clientHeight / 2;
  }
}

function renderSpectators() {
  const g = state.game;
  if (!g) return;
  $('spectators').textContent = `${g.spectators} watching`;
  $('spectators').dataset.count = String(g.spectators);
}

/// Shows the position after `ply` (0 = the start), or the live one for the last ply.
/** @param {number} ply */
function showPly(ply) {
  const g = state.game;
  if (!g) return;
  const target = Math.max(0, Math.min(ply, g.moves.length));
  if (target === g.moves.length) {
    state.history.view = null;
  } else if (state.history.at(target)) {
    state.history.view = target;
  } else {
    showStatus('That position is not available on this page (it came before the page opened).', true);
    return;
  }
  render(false, { animate: false });
}

/**
 * @param {string} text
 * @param {boolean} [error]
 */
function showStatus(text, error) {
  const el = $('status');
  el.textContent = text;
  el.classList.toggle('error', !!error);
}

/**
 * @param {string} text
 * @param {() => void} onClick
 * @param {string} [id]
 * @returns {HTMLButtonElement}
 */
function button(text, onClick, id) {
  const b = document.createElement('button');
  b.type = 'button';
  b.textContent = text;
  if (id) b.id = id;
  b.addEventListener('click', onClick);
  return b;
}

/// A prompt to the opponent of an offer: the question, Accept and Decline.
/**
 * @param {string} id
 * @param {string} text
 * @param {() => void} accept
 * @param {() => void} decline
 * @returns {HTMLDivElement}
 */
function prompt(id, text, accept, decline) {
  const box = document.createElement('div');
  box.className = 'prompt';
  box.id = `${id}-prompt`;
  box.setAttribute('role', 'alert');
  const p = document.createElement('p');
  p.textContent = text;
  box.append(p, button('Accept', accept, `${id}-accept`), button('Decline', decline, `${id}-decline`));
  return box;
}

function renderOffers() {
  const g = state.game;
  if (!g) return;
  const over = g.status === 'finished' || g.status === 'aborted';
  const live = playing();
  const them = other(g.you);
  $('resign').hidden = !live;
  $('draw').hidden = !live;
  $('abort').hidden = !(live && g.moves.length < 2);
  $('takeback').hidden = !live || g.moves.length < (g.you === 'white' ? 1 : 2);
  $('more-time').hidden = !(live && g.clock);
  $('rematch').hidden = !(g.you && over && !g.rematch_game);
  $('draw').textContent = g.draw_offer === them ? 'Accept draw' : g.draw_offer === g.you ? 'Draw offered' : 'Offer draw';
  $('takeback').textContent = g.takeback_offer === g.you ? 'Takeback proposed' : 'Takeback';
  /** @type {HTMLButtonElement} */ ($('takeback')).disabled = g.takeback_offer === g.you;
  $('rematch').textContent = g.rematch_offer === them ? 'Accept rematch' : g.rematch_offer === g.you ? 'Rematch offered' : 'Rematch';
  const prompts = $('prompts');
  prompts.replaceChildren();
  if (live && g.draw_offer === them) {
    prompts.appendChild(prompt('draw', 'Your opponent offers a draw.', () => send({ t: 'draw_accept' }), () => send({ t: 'draw_decline' })));
  }
  if (live && g.takeback_offer === them) {
    prompts.appendChild(prompt('takeback', 'Your opponent asks to take back their last move.',
      () => send({ t: 'takeback_accept' }), () => send({ t: 'takeback_decline' })));
  }
  if (g.you && over && g.rematch_offer === them && !g.rematch_game) {
    prompts.appendChild(prompt('rematch', 'Your opponent offers a rematch.', () => send({ t: 'rematch_accept' }), () => send({ t: 'rematch_decline' })));
  }
  const offer = $('offer');
  offer.replaceChildren();
  if (g.rematch_game) {
    const a = document.createElement('a');
    a.href = `/game/${g.rematch_game}`;
    a.textContent = 'Go to the rematch';
    offer.appendChild(a);
  }
  renderClaims(offer, live, them);
  renderJoin(over);
}

/// Before both sides have moved the game can only be aborted, not claimed; and only once the
/// opponent has been gone for the claim delay. The wait is counted down in whole seconds, as
/// lichess does.
/**
 * @param {HTMLElement} offer
 * @param {boolean} live
 * @param {Color} them
 */
function renderClaims(offer, live, them) {
  const g = state.game;
  clearTimeout(state.claimTimer);
  if (!(live && g.moves.length >= 2 && (g.absent || []).includes(them))) return;
  const wait = (state.claimAt[them] ?? 0) - performance.now();
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

/** @param {boolean} over */
function renderJoin(over) {
  const g = state.game;
  const join = $('join');
  join.replaceChildren();
  if (g.status === 'waiting' && !g.you && g.creator !== myName()) {
    join.appendChild(button(myName() ? 'Accept this challenge' : 'Play as guest and accept', acceptChallenge, 'accept'));
  }
  if (g.status === 'waiting' && g.creator === myName()) {
    join.appendChild(button('Cancel this challenge', () => send({ t: 'abort' }), 'cancel-challenge'));
  }
  $('replay-link').hidden = over; // the banner's Analyse button goes there
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
    const color = /** @type {Color} */ (el.dataset.color);
    if (!g.clock) {
      el.textContent = g.time_control ? formatClock(g.time_control.initial_ms) : '';
      el.classList.remove('running');
      continue;
    }
    let ms = g.clock[/** @type {'white_ms' | 'black_ms'} */ (`${color}_ms`)];
    const running = g.clock.running === color && g.status === 'active';
    if (running) ms -= performance.now() - state.clockAt;
    const text = formatClock(ms);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('running', running);
    el.classList.toggle('low', ms < 10000);
    if (color === g.you) lowTimeAlarm(ms, running);
  }
}

/// One low-time sound when the player's own running clock falls under the threshold
/// (a tenth of the starting time, at most ten seconds), again after it went back above.
/**
 * @param {number} ms
 * @param {boolean} running
 */
function lowTimeAlarm(ms, running) {
  const initial = state.game.time_control ? state.game.time_control.initial_ms : 0;
  const threshold = Math.min(10000, Math.max(2000, initial / 10));
  if (ms > threshold) state.lowTime = false;
  else if (running && !state.lowTime && ms > 0) {
    state.lowTime = true;
    playSound('low_time');
  }
}
function frame() {
  tick();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// Controls ------------------------------------------------------------------------------------

$('flip').addEventListener('click', () => {
  state.flipped = !state.flipped;
  render(true, { animate: false });
});
confirmButton($('resign'), 'Confirm resign?', () => send({ t: 'resign' }));
confirmButton($('abort'), 'Confirm abort?', () => send({ t: 'abort' }));
$('draw').addEventListener('click', () => {
  const g = state.game;
  send({ t: g.draw_offer === other(g.you) ? 'draw_accept' : 'draw_offer' });
});
$('takeback').addEventListener('click', () => send({ t: 'takeback_offer' }));
$('more-time').addEventListener('click', () => send({ t: 'more_time' }));
$('rematch').addEventListener('click', () => {
  const g = state.game;
  send({ t: g.rematch_offer === other(g.you) ? 'rematch_accept' : 'rematch_offer' });
});
$('move-form').addEventListener('submit', (e) => {
  e.preventDefault();
  /** @type {HTMLInputElement} */
  const input = $('move-input');
  const text = input.value.trim();
  if (!text || !state.game) return;
  if (!myTurn()) {
    showStatus('Not your turn yet.', true);
    return;
  }
  act(text);
  input.value = '';
});
$('view-first').addEventListener('click', () => showPly(0));
$('view-prev').addEventListener('click', () => showPly((state.history.view ?? state.game.moves.length) - 1));
$('view-next').addEventListener('click', () => showPly((state.history.view ?? state.game.moves.length) + 1));
$('view-last').addEventListener('click', () => showPly(Infinity));
$('back-to-game').addEventListener('click', () => showPly(Infinity));
document.addEventListener('keydown', (e) => {
  // Typing, and the board's own arrow-key navigation between squares, keep their keys.
  const inside = e.target instanceof Element && e.target.closest('input, textarea, select, #boards');
  if (!state.game || inside || e.altKey || e.ctrlKey || e.metaKey) return;
  const at = state.history.view ?? state.game.moves.length;
  const target = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: Infinity }[e.key];
  if (target === undefined) return;
  e.preventDefault();
  showPly(target);
});
// A click anywhere but the board drops the premove (the board reports clicks on it).
document.addEventListener('pointerdown', (e) => {
  if (state.premove && !(e.target instanceof Element && e.target.closest('#boards'))) setPremove(null);
});
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && !state.socket && state.game) connect();
});
wireSoundToggle($('sound-toggle'));
wireNotifyToggle($('notify-toggle'));
// Keep the connection warm through proxies that close idle sockets.
setInterval(() => send({ t: 'ping' }), 25000);

connect();
