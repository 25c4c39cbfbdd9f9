// The lobby's games in progress as small live boards: a few games (the newest the page lists)
// watched on one `/ws/games` socket (docs/protocol.md, "Many games on one socket"), each
// drawn with miniboard.js from its snapshot and brought up to date with every action's
// `update`. Games that leave the list are unwatched; a game that ends stays shown, with its
// result, until the next list leaves it out. A version gap asks the game for what was
// missed (`sync`); a dropped socket reconnects and watches again from scratch.
//
// Each game is watched as a preview: the game counts the page as nobody, so a player whose own
// game shows here is still seen as gone from it (the opponent's claims depend on that), and the
// game page's spectator count is only of people on the game page.

import { miniBoardSvg, applyUpdate } from '../miniboard.js';
import { outcomeText, clockText } from '../common.js';
import { esc } from '../dom.js';

/// At most this many boards: enough to pick a game, few enough for a phone.
export const MAX_LIVE_BOARDS = 6;

/**
 * A game shown: its list item, and its position at version `v` (null until its snapshot).
 * @typedef {{ li: HTMLElement, rules: import('../types.js').Snapshot | null, v: number | null }} LiveGame
 */

export class LiveBoards {
  /// `list` is the `<ul>` the boards go in; `vname` names a variant.
  /**
   * @param {HTMLElement} list
   * @param {(variant: string) => string} vname
   */
  constructor(list, vname) {
    this.list = list;
    this.vname = vname;
    /** @type {Map<string, LiveGame>} */
    this.games = new Map();
    /** @type {WebSocket | null} */
    this.socket = null;
    this.retry = 0;
  }

  /// Shows these games (summaries of `GET /api/games`), the first MAX_LIVE_BOARDS of them.
  /** @param {import('../types.js').GameSummary[]} summaries */
  show(summaries) {
    const wanted = summaries.slice(0, MAX_LIVE_BOARDS);
    const ids = new Set(wanted.map((g) => g.game_id));
    for (const id of [...this.games.keys()]) {
      if (!ids.has(id)) this.drop(id, true);
    }
    for (const g of wanted) {
      if (!this.games.has(g.game_id)) this.add(g);
    }
    this.list.hidden = this.games.size === 0;
    if (this.games.size > 0) this.connect();
  }

  /** @param {import('../types.js').GameSummary} summary */
  add(summary) {
    const li = document.createElement('li');
    li.className = 'live-board';
    li.dataset.gameId = summary.game_id;
    // The link is named by what it shows: the picture ("Live position") and the caption.
    li.innerHTML = `<a href="/game/${esc(summary.game_id)}">`
      + '<span class="board-box"></span>'
      + `<span class="live-caption"><span class="live-players"><span class="visually-hidden">Watch </span>${esc(summary.white_name)} – ${esc(summary.black_name)}</span>`
      + `<span class="live-terms muted">${esc(this.vname(summary.variant))} · ${esc(clockText(summary.clock))}</span>`
      + '<span class="live-result"></span></span></a>';
    this.list.appendChild(li);
    this.games.set(summary.game_id, { li, rules: null, v: null });
    this.send({ t: 'watch', gid: summary.game_id, preview: true });
  }

  /**
   * @param {string} id
   * @param {boolean} unwatch whether to tell the server
   */
  drop(id, unwatch) {
    const game = this.games.get(id);
    if (!game) return;
    game.li.remove();
    this.games.delete(id);
    if (unwatch) this.send({ t: 'unwatch', gid: id });
  }

  /** @param {import('../types.js').ClientMsg} message */
  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  connect() {
    if (this.socket) return;
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const socket = new WebSocket(`${proto}://${location.host}/ws/games`);
    this.socket = socket;
    socket.addEventListener('open', () => {
      this.retry = 0;
      for (const [id, game] of this.games) {
        game.v = null;
        this.send({ t: 'watch', gid: id, preview: true });
      }
    });
    socket.addEventListener('message', (e) => {
      let msg;
      try { msg = JSON.parse(e.data); } catch (_) { return; }
      if (msg.gid) this.onGame(msg.gid, msg);
    });
    socket.addEventListener('close', () => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.games.size === 0) return;
      this.retry += 1;
      setTimeout(() => this.connect(), Math.min(10000, 500 * 2 ** Math.min(this.retry, 4)));
    });
  }

  /**
   * @param {string} id
   * @param {import('../types.js').GameServerMsg} msg
   */
  onGame(id, msg) {
    const game = this.games.get(id);
    if (!game) return;
    switch (msg.t) {
      case 'snapshot':
        game.v = msg.v;
        game.rules = msg.game.rules;
        this.draw(game, msg.game.outcome);
        break;
      case 'batch':
        for (const m of msg.messages || []) this.onGame(id, m);
        break;
      case 'event':
        this.onEvent(id, game, msg);
        break;
      case 'unwatched':
        // The game stopped (let go after its end): the next list says what replaces it.
        this.drop(id, false);
        break;
      case 'error':
        if (msg.code === 'game_not_found') this.drop(id, false);
        break;
      default:
        break;
    }
  }

  /**
   * @param {string} id
   * @param {LiveGame} game
   * @param {{ v: number } & import('../types.js').GameEvent} msg
   */
  onEvent(id, game, msg) {
    if (game.v === null) return;
    if (msg.v !== game.v + 1) {
      // Missed something: the game sends the gap, or a snapshot.
      if (msg.v > game.v + 1) this.send({ t: 'game', gid: id, msg: { t: 'sync', v: game.v } });
      return;
    }
    game.v = msg.v;
    switch (msg.kind) {
      case 'action':
        game.rules = applyUpdate(game.rules, msg.update);
        this.draw(game, null);
        break;
      case 'started':
      case 'takeback':
        game.rules = msg.rules;
        this.draw(game, null);
        break;
      case 'ended':
        this.draw(game, msg.outcome);
        break;
      default:
        break;
    }
  }

  /**
   * @param {LiveGame} game
   * @param {import('../types.js').Outcome | null} outcome
   */
  draw(game, outcome) {
    if (!game.rules) return;
    game.li.querySelector('.board-box').innerHTML = miniBoardSvg(game.rules, { label: 'Live position:' });
    game.li.dataset.ply = String(game.rules.ply ?? '');
    if (outcome) {
      game.li.classList.add('ended');
      game.li.querySelector('.live-result').textContent = outcomeText(outcome);
    }
  }
}
