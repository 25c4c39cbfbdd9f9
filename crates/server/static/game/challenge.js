// The open challenge on the game page (a waiting game made by "Challenge a friend",
// `POST /api/games`): who challenges and on what terms (variant, clock, the colour the one
// who accepts gets, rated or casual), from the snapshot's `creator`, `variant`,
// `time_control`, `color_choice` and `rated`. The friend who opened the link reads who
// challenges them before they accept; the creator reads their own terms and gets the link
// with a Copy button, as the lobby's "Challenge a friend" dialog has. Gone once the game
// starts or is cancelled.

import { clockText } from '../common.js';

/// The colour the player who accepts gets: the other one than the creator chose, or one
/// drawn when the game starts.
/**
 * @param {'random' | 'white' | 'black'} choice the creator's `color_choice`
 * @returns {string}
 */
export function acceptorColour(choice) {
  if (choice === 'white') return 'Black';
  if (choice === 'black') return 'White';
  return 'a colour drawn at random';
}

/// What the panel says about a waiting game to viewer `me` (null when signed out):
/// `{ heading, terms }`, or null when the game is not an open challenge.
/**
 * @param {import('../types.js').GameView} game
 * @param {string | null} me
 * @param {string} variantName the variant's name (its id until the name is known)
 * @returns {{ heading: string, terms: string, mine: boolean } | null}
 */
export function challengeText(game, me, variantName) {
  if (game.status !== 'waiting') return null;
  const mine = !!me && game.creator === me;
  const colour = acceptorColour(game.color_choice);
  const side = mine
    ? (game.color_choice === 'random' ? 'colours drawn at random' : `you play ${game.color_choice === 'white' ? 'White' : 'Black'}`)
    : `you play ${colour}`;
  const terms = [variantName, clockText(game.time_control), side, game.rated ? 'rated' : 'casual'].join(' · ');
  return { heading: mine ? 'Your challenge' : `${game.creator} challenges you`, terms, mine };
}

/// What a player's bar says for `color` ("alice (white)"): the seated name; in an open
/// challenge, the challenger on the colour they chose, or, when colours are drawn at the start,
/// on the viewer's opposite bar (their own bottom one for the challenger); the other seat is
/// open. `bottom` is whether this bar is the viewer's bottom one.
/**
 * @param {import('../types.js').GameView} game
 * @param {import('../types.js').Color} color
 * @param {boolean} bottom
 * @param {string | null} me
 * @returns {string}
 */
export function seatName(game, color, bottom, me) {
  const seated = game[color];
  if (seated) return `${seated} (${color})`;
  if (game.status !== 'waiting' || !game.creator) return `… (${color})`;
  if (game.color_choice === 'random') {
    const creatorsBar = me === game.creator ? bottom : !bottom;
    return creatorsBar ? `${game.creator} (colour drawn at the start)` : 'Waiting for an opponent';
  }
  return game.color_choice === color ? `${game.creator} (${color})` : `Waiting for an opponent (${color})`;
}

export class ChallengePanel {
  /// `els`: the panel's section, heading, terms line, the creator's link row with its input
  /// and Copy button, and the status line Copy answers in. `api` reads `/api/variants`.
  /**
   * @param {{ section: HTMLElement, heading: HTMLElement, terms: HTMLElement, share: HTMLElement, link: HTMLInputElement, copy: HTMLButtonElement, note: HTMLElement }} els
   * @param {(path: string) => Promise<any>} api
   */
  constructor(els, api) {
    this.els = els;
    this.api = api;
    /** @type {Record<string, string>} the variants' names by id, once read */
    this.names = {};
    /** @type {Promise<void> | null} */
    this.naming = null;
    /** @type {{ game: import('../types.js').GameView, me: string | null } | null} */
    this.last = null;
    els.copy.addEventListener('click', () => this.copy());
  }

  /// Shows the panel for game `g` as viewer `me` sees it, or hides it.
  /**
   * @param {import('../types.js').GameView} g
   * @param {string | null} me
   */
  show(g, me) {
    this.last = { game: g, me };
    const text = challengeText(g, me, this.names[g.variant] || g.variant);
    const { section, heading, terms, share, link } = this.els;
    section.hidden = !text;
    if (!text) return;
    heading.textContent = text.heading;
    terms.textContent = text.terms;
    share.hidden = !text.mine;
    if (text.mine) link.value = location.href.split('#')[0];
    // The page only knows the variant's id: its name comes from the API, once.
    if (!this.names[g.variant] && !this.naming) {
      this.naming = this.api('/api/variants').then((answer) => {
        for (const v of answer.variants || []) this.names[v.id] = v.name;
        if (this.last) this.show(this.last.game, this.last.me);
      }).catch(() => {});
    }
  }

  async copy() {
    const { link, note } = this.els;
    try {
      await navigator.clipboard.writeText(link.value);
      note.textContent = 'Link copied.';
    } catch (_) {
      // No clipboard permission: leave the link selected for the reader to copy.
      link.select();
      note.textContent = 'Select the link and copy it.';
    }
  }
}
