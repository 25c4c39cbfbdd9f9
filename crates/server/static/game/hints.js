// Newcomers' hints on the game page, and the link to the rules of the game's variant. In a
// player's first games of a variant (fewer than NEWCOMER_GAMES finished, from
// `GET /api/users/{me}/results`), a short hint points out a special rule of the variant the
// first time it matters in the game: when the position offers the player an action that the
// rule governs, or the opponent has just used it. Each hint is shown once per game (kept
// in sessionStorage, so a reload does not repeat it), can be dismissed, and is announced
// through a polite live region.
//
// They take one compact line, "New in this variant: …" with the newest hint, and the earlier
// ones behind a "more" disclosure: stacked, a variant's hints pushed Resign and the moves off
// a laptop's screen. They go when the game ends, where the result banner takes their place.
//
// The hints know no rules: they read the server's snapshot only — its legal actions in
// machine notation (docs/rules/<variant>.md, "Action notation"), the pieces on their
// squares, the board's zones and the last action — so whatever the server allows is what
// they describe.

/// Finished games of a variant after which a player sees no more hints for it.
export const NEWCOMER_GAMES = 5;

/** @param {import('../types.js').Color} color @returns {import('../types.js').Color} */
const other = (color) => (color === 'white' ? 'black' : 'white');

/// The from and to squares at the start of a machine action (`e2e4`, `a10a12`, `b2a3@x1`).
/**
 * @param {string} action
 * @returns {{ from: string, to: string, fromRank: number, toRank: number, sameFile: boolean } | null}
 */
function squares(action) {
  const m = /^([a-z])(\d{1,2})([a-z])(\d{1,2})/.exec(action);
  return m ? { from: m[1] + m[2], to: m[3] + m[4], fromRank: +m[2], toRank: +m[4], sameFile: m[1] === m[3] } : null;
}

/**
 * What a hint's trigger reads: the position, whose turn it is, and helpers over its pieces.
 * @typedef {object} Context
 * @property {import('../types.js').Snapshot} rules
 * @property {import('../types.js').Color} you
 * @property {boolean} mine whether it is the player's turn in a game not over
 * @property {string[]} legal the player's legal actions (none on the opponent's turn)
 * @property {import('../types.js').LastAction | null} last
 * @property {boolean} lastByMe
 * @property {(square: string, board?: string) => import('../types.js').PlacedPiece | undefined} at
 */

/**
 * @param {import('../types.js').Snapshot} rules
 * @param {import('../types.js').Color} you
 * @returns {Context}
 */
function context(rules, you) {
  const pieces = new Map(rules.pieces.map((p) => [`${p.board}:${p.square}`, p]));
  const mine = rules.turn === you && !rules.outcome;
  const last = rules.last_action || null;
  return {
    rules,
    you,
    mine,
    // The player's own choices only: what the opponent may do is not theirs to learn yet.
    legal: mine ? rules.legal_actions || [] : [],
    last,
    // The side that made the last action: every action of these variants hands the turn over.
    lastByMe: !!last && rules.ply > 0 && other(rules.turn) === you,
    at: (square, board = 'main') => pieces.get(`${board}:${square}`),
  };
}

/// Whether a legal action of the player lands on a square held by an opponent's piece.
/**
 * @param {Context} c
 * @param {string} action
 * @returns {boolean}
 */
function landsOnEnemy(c, action) {
  const s = squares(action);
  const target = s && c.at(s.to);
  return !!target && target.color !== c.you;
}

/// Whether the player's own piece of `role` stands where `action` starts.
/**
 * @param {Context} c
 * @param {string} action
 * @param {string} role
 * @returns {boolean}
 */
function startsFrom(c, action, role) {
  const s = squares(action);
  const piece = s && c.at(s.from);
  return !!piece && piece.color === c.you && piece.role === role;
}

/// Each variant's hints, in the order they are checked: an id, and the text when it applies.
/** @type {Record<string, [string, (c: Context) => string | null][]>} */
const HINTS = {
  suicide: [
    ['must_capture', (c) => {
      /** @param {string} a */
      const capture = (a) => {
        if (landsOnEnemy(c, a)) return true;
        // En passant: a pawn moving sideways onto an empty square.
        const s = squares(a);
        return !!s && !s.sameFile && startsFrom(c, a, 'pawn');
      };
      return c.legal.some(capture)
        ? 'A capture is possible, so you must capture: in Suicide Chess taking is compulsory. With several captures, choose any.'
        : null;
    }],
    ['king_capture', (c) => (c.legal.some((a) => landsOnEnemy(c, a) && c.at(squares(a).to).role === 'king')
      ? 'You may take the enemy king: in Suicide Chess kings are ordinary pieces, with no check.'
      : null)],
  ],
  chazz: [
    ['pass', (c) => {
      if (!c.last || c.last.machine !== 'pass') return null;
      return c.lastByMe
        ? 'You had no legal move and were not in check, so your turn passed: Chazz has no stalemate.'
        : 'Your opponent had no legal move, so their turn passed and you move again: Chazz has no stalemate.';
    }],
    ['self_destruct', (c) => {
      // Written as a step one rank off the board on the pawn's file: a1a0, or a5a6 for Black.
      const [first, off] = c.you === 'white' ? [1, 0] : [5, 6];
      /** @param {string} a */
      const leaves = (a) => {
        const s = squares(a);
        return !!s && s.sameFile && s.fromRank === first && s.toRank === off;
      };
      if (c.legal.some(leaves)) {
        return 'A pawn on your own first rank may step backward off the board and leave the game for good (written like a1-off). It is a whole move.';
      }
      return c.last && !c.lastByMe && /-off$/.test(c.last.human)
        ? 'Your opponent\'s pawn stepped off the board from its first rank: a self-destruct, a whole move in Chazz.'
        : null;
    }],
    ['backward_pawn', (c) => {
      /** @param {string} a */
      const back = (a) => {
        const s = squares(a);
        if (!s || !s.sameFile || !startsFrom(c, a, 'pawn') || c.at(s.to)) return false;
        return c.you === 'white' ? s.toRank === s.fromRank - 1 && s.toRank >= 1 : s.toRank === s.fromRank + 1 && s.toRank <= 5;
      };
      return c.legal.some(back)
        ? 'Pawns can also step one square straight back in Chazz, onto an empty square. A backward step never captures and never promotes.'
        : null;
    }],
  ],
  duel: [
    ['duel_placement', (c) => {
      if (c.legal.some((a) => a.includes('@'))) {
        return 'A capture on the main board does not remove the piece: you place it on the Duel board, the small board, on an empty square you choose.';
      }
      return c.last && !c.lastByMe && c.last.machine.includes('@')
        ? 'Your opponent\'s capture sent your piece to the Duel board: it plays on there.'
        : null;
    }],
    ['duel_return', (c) => (c.legal.some((a) => a.includes('>')) || (c.last && !c.lastByMe && c.last.machine.includes('>'))
      ? 'On the Duel board a capture kills the piece taken, and the capturing piece returns at once to a main-board square its owner chooses.'
      : null)],
    ['duel_frozen', (c) => (c.rules.pieces.some((p) => p.board === 'duel' && (p.marks || []).includes('frozen'))
      ? 'Pieces on the Duel board are frozen until both colours stand there: only then may they move.'
      : null)],
  ],
  chad: [
    ['castle_king', (c) => (c.legal.some((a) => startsFrom(c, a, 'king'))
      ? 'Your king never leaves its castle, the 3×3 square: it moves one step or a knight\'s leap inside it.'
      : null)],
    ['wall_capture', (c) => (c.legal.some((a) => landsOnEnemy(c, a)) || (c.last && !c.lastByMe && /x/.test(c.last.human))
      ? 'In Chad, rooks and queens capture only from the enemy wall into the enemy castle, or, defending, from their own castle onto their own wall. Anywhere else pieces just block each other.'
      : null)],
    ['promotion', (c) => {
      const zone = (c.rules.boards[0].zones || []).find((z) => z.kind === 'castle' && z.color === other(c.you));
      const castle = new Set(zone ? zone.squares : []);
      /** @param {string} a */
      const promotes = (a) => {
        const s = squares(a);
        return !!s && castle.has(s.to) && startsFrom(c, a, 'rook');
      };
      return c.legal.some(promotes) || (c.last && /=Q/.test(c.last.human))
        ? 'A rook that ends its move inside the enemy castle becomes a queen.'
        : null;
    }],
  ],
  drehs: [
    // Every attack is written with an x (`d1xd7`, `g1@d6xe8`, `e5xd6/c6d6`); nothing else is.
    ['dice_attack', (c) => (c.legal.some((a) => a.includes('x')) || (c.last && c.last.machine.includes('x'))
      ? 'Attacks are rolled: a d20 plus the attacker\'s ears must beat the target\'s armor, then the weapon dice take life points. A target that survives strikes back.'
      : null)],
    ['teleport', (c) => (c.legal.some((a) => /^[a-h][1-8]@/.test(a))
      ? 'Your knights can teleport to any empty square (they then have 1 life point), and may attack from there in the same move.'
      : null)],
    ['cannon', (c) => (c.legal.some((a) => a.includes('^')) || (c.last && !c.lastByMe && c.last.machine.includes('^'))
      ? 'A rook may fire its cannon at an enemy 2 to 5 squares away along a clear line: 2d4 damage and 1 to every piece around the target, but it never kills.'
      : null)],
    ['heal', (c) => {
      if (!c.legal.some((a) => a.startsWith('heal:'))) return null;
      const king = c.rules.pieces.find((p) => p.board === 'main' && p.role === 'king' && p.color === c.you);
      if (!king) return null;
      /** @param {import('../types.js').PlacedPiece} p */
      const near = (p) => Math.abs(p.square.charCodeAt(0) - king.square.charCodeAt(0)) <= 1
        && Math.abs(+p.square.slice(1) - +king.square.slice(1)) <= 1 && p !== king;
      const wounded = c.rules.pieces.some((p) => p.board === 'main' && p.color === c.you && near(p)
        && p.stats && p.stats.life < p.stats.max_life);
      return wounded
        ? 'Your king can spend its turn healing: every piece of yours around it gets 4 life points back.'
        : null;
    }],
    ['bishop_return', (c) => (c.legal.some((a) => a.startsWith('return:'))
      ? 'A bishop of your starting army that died may come back to its home square, with 3 life points.'
      : null)],
  ],
};

/** @typedef {{ id: string, text: string }} Hint */

/// The hints that apply to `you` in the position `rules` of `variant`: `[{id, text}]`.
/**
 * @param {string} variant
 * @param {import('../types.js').Snapshot} rules
 * @param {import('../types.js').Color} you
 * @returns {Hint[]}
 */
export function hintsFor(variant, rules, you) {
  const c = context(rules, you);
  const found = [];
  for (const [id, when] of HINTS[variant] || []) {
    const text = when(c);
    if (text) found.push({ id, text });
  }
  return found;
}

/// The hints on show once `fresh` ones arrive, newest first: the first is the line, the others
/// wait behind "more". Several arriving together keep the variant's order, whose first rule
/// is the most basic one and so leads; a hint already on show is not repeated.
/**
 * @param {Hint[]} onShow
 * @param {Hint[]} fresh
 * @returns {Hint[]}
 */
export function stackHints(onShow, fresh) {
  const ids = new Set(fresh.map((h) => h.id));
  return [...fresh, ...onShow.filter((h) => !ids.has(h.id))];
}

/// The name of the disclosure of `count` earlier hints.
/** @param {number} count @returns {string} */
export function moreLabel(count) {
  return count === 1 ? '1 more hint' : `${count} more hints`;
}

/// The link to the variant's page and the hints of one game page.
export class Hints {
  /**
   * @param {{ region: HTMLElement, link: HTMLAnchorElement }} elements
   * @param {string} gameId
   * @param {(path: string) => Promise<any>} api common.js `api`, passed in so that the hints can be tested alone
   * @param {() => string | null} me the signed-in user's name
   */
  constructor({ region, link }, gameId, api, me) {
    this.region = region;
    this.link = link;
    this.api = api;
    this.me = me;
    this.key = `oddboard.hints.${gameId}`;
    this.shown = new Set(this.load());
    /** @type {Promise<boolean> | null} */
    this.newcomer = null; // whether the player is new to the variant
    this.named = false;
    /** @type {Hint[]} the hints on show, newest first */
    this.onShow = [];
    /** @type {Map<string, HTMLElement>} each hint's box, kept so that a box is moved, not redrawn */
    this.boxes = new Map();
    this.older = document.createElement('div');
    this.older.className = 'hint-older';
    this.older.id = `${region.id}-older`;
    this.older.hidden = true;
    this.more = document.createElement('button');
    this.more.type = 'button';
    this.more.className = 'hint-more';
    this.more.setAttribute('aria-controls', this.older.id);
    this.more.setAttribute('aria-expanded', 'false');
    this.more.addEventListener('click', () => this.expand(this.more.getAttribute('aria-expanded') !== 'true'));
  }

  /** @returns {string[]} */
  load() {
    try { return JSON.parse(sessionStorage.getItem(this.key) || '[]'); } catch (_) { return []; }
  }

  save() {
    try { sessionStorage.setItem(this.key, JSON.stringify([...this.shown])); } catch (_) { /* private mode */ }
  }

  /// Points the rules link at the variant's page, with its name once known.
  /** @param {string} variant */
  name(variant) {
    if (this.named) return;
    this.named = true;
    this.link.href = `/variant/${variant}`;
    this.link.textContent = 'Rules of this game';
    this.api('/api/variants').then((answer) => {
      const info = (answer.variants || []).find((/** @type {{ id: string, name: string }} */ v) => v.id === variant);
      if (info) this.link.textContent = `Rules of ${info.name}`;
    }).catch(() => {});
  }

  /// Whether the signed-in player has finished fewer than NEWCOMER_GAMES games of `variant`;
  /// once known, also the region's `data-newcomer`, which says the hints are settled.
  /**
   * @param {string} variant
   * @returns {Promise<boolean>}
   */
  isNewcomer(variant) {
    if (!this.newcomer) {
      const me = this.me();
      const known = !me ? Promise.resolve(false)
        : this.api(`/api/users/${encodeURIComponent(me)}/results`).then((answer) => {
          const mine = (answer.results || []).find((/** @type {{ variant: string, finished: number }} */ r) => r.variant === variant);
          return !mine || mine.finished < NEWCOMER_GAMES;
        }).catch(() => false);
      this.newcomer = known.then((newcomer) => {
        this.region.dataset.newcomer = String(newcomer);
        return newcomer;
      });
    }
    return this.newcomer;
  }

  /// Looks at the live position of game `g` (the page's `state.game`): a player's new hints
  /// are shown. Earlier positions (browsing) bring none; a game that is over takes them away.
  /**
   * @param {import('../types.js').GameView} g
   * @param {boolean} live whether the live position is shown
   */
  async update(g, live) {
    this.name(g.variant);
    if (g.status !== 'active') {
      // Over (or not begun): a hint about the next move has nothing left to say.
      this.clear();
      return;
    }
    if (!live || !g.you) return;
    // Asked at once, so that a hint is not held up by the question when its rule matters.
    const newcomer = this.isNewcomer(g.variant);
    if (!hintsFor(g.variant, g.rules, g.you).some((h) => !this.shown.has(h.id)) || !(await newcomer)) return;
    // `g` is the page's live game: it may have moved on or ended while the answer came.
    if (g.status !== 'active') return;
    // Read again after the wait: an update that came first may have shown some meanwhile.
    const fresh = hintsFor(g.variant, g.rules, g.you).filter((h) => !this.shown.has(h.id));
    if (!fresh.length) return;
    for (const hint of fresh) this.shown.add(hint.id);
    this.save();
    this.onShow = stackHints(this.onShow, fresh);
    this.render();
  }

  /// Takes every hint away (the game is over).
  clear() {
    if (!this.onShow.length) return;
    this.onShow = [];
    this.boxes.clear();
    this.expand(false);
    this.region.replaceChildren();
  }

  /// Shows or hides the earlier hints.
  /** @param {boolean} open */
  expand(open) {
    this.older.hidden = !open;
    this.more.setAttribute('aria-expanded', String(open));
  }

  /// Puts the newest hint on the line and the others behind "more". Boxes already there are
  /// moved rather than made again, so that the live region announces the new hint only.
  render() {
    const [newest, ...older] = this.onShow;
    // First, so that the line's old box leaves the region for the earlier ones.
    this.older.replaceChildren(...older.map((h) => this.box(h)));
    if (!newest) {
      this.region.replaceChildren();
      this.expand(false);
      return;
    }
    const line = this.box(newest);
    if (this.region.firstElementChild !== line) this.region.prepend(line);
    if (older.length) {
      this.more.textContent = moreLabel(older.length);
      line.append(this.more);
      if (this.older.parentNode !== this.region) this.region.append(this.older);
    } else {
      this.more.remove();
      this.older.remove();
      this.expand(false);
    }
  }

  /// The box of `hint`: its text, with "New in this variant" before it on the line, and a
  /// button that dismisses it.
  /**
   * @param {Hint} hint
   * @returns {HTMLElement}
   */
  box(hint) {
    const known = this.boxes.get(hint.id);
    if (known) return known;
    const box = document.createElement('div');
    box.className = 'hint';
    box.dataset.hint = hint.id;
    const p = document.createElement('p');
    const label = document.createElement('strong');
    label.className = 'hint-label';
    label.textContent = 'New in this variant: ';
    p.append(label, hint.text);
    const dismiss = document.createElement('button');
    dismiss.type = 'button';
    dismiss.textContent = 'Got it';
    dismiss.addEventListener('click', () => this.dismiss(hint.id));
    box.append(p, dismiss);
    this.boxes.set(hint.id, box);
    return box;
  }

  /// Takes one hint away; the next newest comes onto the line.
  /** @param {string} id */
  dismiss(id) {
    const box = this.boxes.get(id);
    const focused = !!box && box.contains(document.activeElement);
    this.onShow = this.onShow.filter((h) => h.id !== id);
    this.boxes.delete(id);
    if (box) box.remove();
    this.render();
    // The pressed button is gone: focus goes on to the next hint, or the rules link after.
    if (focused) {
      const next = /** @type {HTMLElement | null} */ (this.region.querySelector('.hint button'));
      (next || this.link).focus();
    }
  }
}
