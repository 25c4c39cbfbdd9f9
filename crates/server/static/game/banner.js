// The result banner at the end of a game: the result and its reason, each player's rating
// change in a rated game (players.js), and what to do next: Rematch (players only), New
// opponent (back to the lobby) and Analyse (the replay page with the engine analysis).

import { outcomeText, scoreText } from '../common.js';
import { forgetRatings, ratingChange } from './players.js';

export class ResultBanner {
  /// `els`: {section, title, reason, changes, newOpponent}.
  /**
   * @param {{ section: HTMLElement, title: HTMLElement, reason: HTMLElement, changes: HTMLElement, newOpponent: HTMLElement }} els
   * @param {string} gameId
   */
  constructor(els, gameId) {
    this.els = els;
    this.gameId = gameId;
    /** @type {string | null} */
    this.shownFor = null;
  }

  /// Shows the banner for a game that is over (idempotent), or hides it.
  /**
   * @param {import('../types.js').GameView} game
   * @param {() => void} [onRatings] called when the rating changes are shown
   */
  show(game, onRatings) {
    const { section, title, reason, changes, newOpponent } = this.els;
    const over = game.status === 'finished' || game.status === 'aborted';
    section.hidden = !over;
    if (!over) return;
    newOpponent.hidden = !game.you;
    const key = `${game.status} ${JSON.stringify(game.outcome)}`;
    if (this.shownFor === key) return;
    this.shownFor = key;
    const outcome = game.outcome;
    if (game.status === 'aborted' || (outcome && outcome.reason === 'aborted')) {
      title.textContent = 'Game aborted';
      reason.textContent = 'It counts for nobody.';
    } else if (outcome) {
      const score = scoreText(outcome);
      title.textContent = `${score} · ${outcome.winner ? `${outcome.winner === 'white' ? 'White' : 'Black'} wins` : 'Draw'}`;
      // "White wins (checkmate)" -> "By checkmate": the title already says who won.
      const why = /\(([^)]*)\)$/.exec(outcomeText(outcome));
      reason.textContent = why ? `By ${why[1]}` : outcomeText(outcome);
    } else {
      title.textContent = 'Game over';
      reason.textContent = '';
    }
    section.dataset.result = title.textContent;
    changes.replaceChildren();
    if (game.rated && game.status === 'finished') this.showChanges(game, onRatings);
  }

  /**
   * @param {import('../types.js').GameView} game
   * @param {() => void} [onRatings]
   */
  async showChanges(game, onRatings) {
    forgetRatings();
    const colors = /** @type {import('../types.js').Color[]} */ (['white', 'black']);
    const found = await Promise.all(colors.map(async (color) => {
      const name = game[color];
      return { color, name, change: await ratingChange(name, game.variant, this.gameId) };
    }));
    const list = this.els.changes;
    list.replaceChildren();
    for (const { name, change } of found) {
      if (!change) continue;
      const li = document.createElement('li');
      li.className = `rating-change ${change.diff > 0 ? 'up' : change.diff < 0 ? 'down' : 'same'}`;
      li.dataset.name = name;
      li.dataset.diff = String(change.diff);
      const sign = change.diff > 0 ? '+' : change.diff < 0 ? '−' : '±';
      li.textContent = `${name}: ${change.before} → ${change.after} (${sign}${Math.abs(change.diff)})`;
      list.appendChild(li);
    }
    if (onRatings) onRatings();
  }
}
