// The chat panel: the players' room for the two players, the spectators' room for everyone
// else (the server decides the room from the sender; a spectator's line never reaches the
// players). Lines come with the snapshot (`game.chat`, the last 50 of the viewer's room) and
// then one by one (`{"t":"chat",…}`, not versioned). Text from people is only ever set as
// `textContent`. Turning chat off and muting the opponent are the reader's choice, kept in
// the browser (localStorage), as on lichess.

const OFF_KEY = 'oddboard.chat.off';
const MUTED_KEY = 'oddboard.chat.muted';
/// Lines kept on the page: the server sends at most 50 with a snapshot.
const KEEP = 200;

/**
 * @param {string} key
 * @param {unknown} fallback
 * @returns {any}
 */
function load(key, fallback) {
  try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch (_) { return fallback; }
}
/**
 * @param {string} key
 * @param {unknown} value
 */
function save(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch (_) { /* storage refused */ }
}

export class ChatPanel {
  /// `els`: {section, title, lines, form, input, toggle, mute, note}; `send(message)` writes to
  /// the game socket.
  /**
   * @param {{ section: HTMLElement, title: HTMLElement, lines: HTMLElement, form: HTMLFormElement, input: HTMLInputElement, toggle: HTMLButtonElement, mute: HTMLButtonElement, note: HTMLElement }} els
   * @param {(message: import('../types.js').ClientMsg) => void} send
   */
  constructor(els, send) {
    this.els = els;
    this.send = send;
    /** @type {import('../types.js').ChatLine[]} */
    this.lines = [];
    /** @type {string | null} */
    this.room = null;
    /** @type {string | null} */
    this.opponent = null;
    this.canWrite = false;
    els.toggle.addEventListener('click', () => {
      save(OFF_KEY, !this.off());
      this.render();
    });
    els.mute.addEventListener('click', () => {
      if (!this.opponent) return;
      const muted = new Set(load(MUTED_KEY, []));
      if (muted.has(this.opponent)) muted.delete(this.opponent);
      else muted.add(this.opponent);
      save(MUTED_KEY, [...muted].slice(-500));
      this.render();
    });
    els.form.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = els.input.value.trim();
      if (!text) return;
      this.send({ t: 'chat', text });
      els.input.value = '';
    });
  }

  off() { return load(OFF_KEY, false) === true; }

  mutedNames() { return new Set(load(MUTED_KEY, [])); }

  /// From a snapshot's game: the room, who may write, who the opponent is, the lines so far
  /// (`me`: the viewer's name, null when signed out).
  /**
   * @param {import('../types.js').GameView} game
   * @param {string | null} me
   */
  reset(game, me) {
    // The creator of an open challenge has no seat before it starts, but the server counts
    // them a player (crates/play/src/state/chat.rs): they write in the players' room.
    const creator = game.status === 'waiting' && !!me && game.creator === me;
    this.room = game.you || creator ? 'players' : 'spectators';
    this.opponent = game.you ? game[game.you === 'white' ? 'black' : 'white'] : null;
    // Players always may; spectators once signed in (guests included).
    this.canWrite = !!game.you || !!me;
    this.lines = Array.isArray(game.chat) ? game.chat.slice(-KEEP) : [];
    this.render();
  }

  /// A line that came over the socket (`{"t":"chat","room","from","text","at"}`).
  /** @param {import('../types.js').ChatLine} msg */
  add(msg) {
    if (msg.room && this.room && msg.room !== this.room) return; // not this viewer's room
    this.lines.push({ room: msg.room, from: msg.from, text: msg.text, at: msg.at });
    if (this.lines.length > KEEP) this.lines.splice(0, this.lines.length - KEEP);
    this.render();
  }

  /// The server refused a line: say why where the line was written.
  /** @param {string} message */
  refused(message) {
    this.els.note.textContent = message;
    this.els.note.classList.add('error');
  }

  render() {
    const { title, lines, form, toggle, mute, note, section } = this.els;
    const off = this.off();
    const muted = this.mutedNames();
    title.textContent = this.room === 'spectators' ? 'Spectators’ chat' : 'Chat';
    // The button says what it does; its name is its text (a different spoken name would
    // confuse people who speak the words they see to voice control).
    toggle.textContent = off ? 'Turn chat on' : 'Turn chat off';
    mute.hidden = off || !this.opponent;
    const isMuted = !!this.opponent && muted.has(this.opponent);
    mute.textContent = isMuted ? `Unmute ${this.opponent}` : 'Mute opponent';
    section.dataset.off = String(off);
    lines.hidden = off;
    form.hidden = off || !this.canWrite;
    lines.replaceChildren();
    if (off) {
      note.textContent = '';
      return;
    }
    let hidden = 0;
    for (const line of this.lines) {
      if (muted.has(line.from)) { hidden += 1; continue; }
      const li = document.createElement('li');
      li.className = 'chat-line';
      const who = document.createElement('span');
      who.className = 'chat-from';
      who.textContent = line.from;
      const text = document.createElement('span');
      text.className = 'chat-text';
      text.textContent = line.text;
      li.append(who, ' ', text);
      lines.appendChild(li);
    }
    lines.scrollTop = lines.scrollHeight;
    note.classList.remove('error');
    if (!this.canWrite && !off) note.textContent = 'Sign in (or play as a guest) to chat.';
    else note.textContent = hidden ? `${hidden} muted line${hidden > 1 ? 's' : ''} hidden.` : '';
  }
}
