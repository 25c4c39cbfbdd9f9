// The variant pages: `/variants` (a still picture of each game's set-up, from the snapshot
// the server put in the page) and `/variant/{id}` (the set-up on the game's own board, and a
// try board for each rule). A try board knows no rule: it shows the server's lesson set-up
// (`GET /api/variants/{id}/lessons`), and each action picked on it is sent with the ones
// before it (`POST /api/variants/{id}/lessons/{lesson}/try`), the rules engine replaying them
// all and answering the position after them and what the page should say. A refused action
// changes nothing: the board shows the last position the server accepted.

import { api, renderRolls, wireHeader } from './common.js';
import { BoardView } from './board.js';
import { miniBoardSvg } from './miniboard.js';

wireHeader();

/// The server's bound on the actions of one try (`web::variant_pages::lessons::MAX_ACTIONS`).
const MAX_ACTIONS = 16;

function drawPictures() {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('.variant-picture[data-snapshot]'))) {
    let rules;
    try { rules = JSON.parse(el.dataset.snapshot); } catch (_) { continue; }
    el.innerHTML = miniBoardSvg(rules, { label: el.dataset.label || 'Set-up' });
  }
  const list = document.getElementById('variants');
  if (list) list.dataset.drawn = 'true';
}

/**
 * A lesson of `GET /api/variants/{id}/lessons`: its id and set-up.
 * @typedef {{ id: string, rules: import('./types.js').Snapshot }} Lesson
 */

/// One lesson's board: its set-up, the actions played on it so far, and the result line.
class TryBoard {
  /**
   * @param {HTMLElement} figure
   * @param {string} variant
   * @param {Lesson} lesson
   */
  constructor(figure, variant, lesson) {
    this.figure = figure;
    this.variant = variant;
    this.lesson = lesson;
    /** @type {string[]} */
    this.actions = [];
    this.rules = lesson.rules;
    this.busy = false;
    this.result = /** @type {HTMLElement} */ (figure.querySelector('.try-result'));
    this.rolls = /** @type {HTMLElement | null} */ (figure.querySelector('.try-rolls'));
    this.view = new BoardView(figure.querySelector('.try-boards'), {
      onAction: (action) => this.play(action),
      picker: figure.querySelector('.try-picker'),
      specials: figure.querySelector('.try-specials'),
    });
    figure.querySelector('.try-reset').addEventListener('click', () => this.reset());
    this.show(lesson.rules, '');
    figure.dataset.state = 'ready';
  }

  /**
   * @param {import('./types.js').Snapshot} rules
   * @param {string} message
   */
  show(rules, message) {
    this.rules = rules;
    this.view.update(rules, !rules.outcome);
    this.result.textContent = message;
    this.figure.dataset.plies = String(this.actions.length);
    if (this.rolls) renderRolls(this.rolls, rules.last_action);
  }

  /** @param {string} action */
  async play(action) {
    if (this.busy) return;
    if (this.actions.length >= MAX_ACTIONS) {
      this.show(this.rules, 'This board has seen enough moves: reset it to try again.');
      return;
    }
    this.busy = true;
    const actions = [...this.actions, action];
    const url = `/api/variants/${encodeURIComponent(this.variant)}/lessons/${encodeURIComponent(this.lesson.id)}/try`;
    try {
      const answer = await api(url, { actions });
      this.actions = actions;
      this.figure.dataset.shown = String(answer.shown);
      this.show(answer.rules, answer.message);
    } catch (err) {
      // Nothing changed on the server's side either: show the position as it was.
      this.show(this.rules, `Not played: ${err.message}`);
    } finally {
      this.busy = false;
    }
  }

  reset() {
    this.actions = [];
    delete this.figure.dataset.shown;
    // Before any move the set-up is the position shown, which the board keeps as it is:
    // put down a piece in hand and close the picker here.
    this.view.closePicker();
    this.view.deselect();
    this.show(this.lesson.rules, '');
  }
}

/** @param {HTMLElement} page */
async function variantPage(page) {
  const variant = page.dataset.variant;
  let list;
  try {
    list = await api(`/api/variants/${encodeURIComponent(variant)}/lessons`);
  } catch (err) {
    for (const result of page.querySelectorAll('.try-result')) {
      result.textContent = `The boards could not be loaded: ${err.message}`;
    }
    page.dataset.loaded = 'error';
    return;
  }
  // The text is shown whatever happens to the boards.
  try {
    const setup = document.getElementById('setup');
    if (setup) {
      const view = new BoardView(setup);
      view.update(list.start, false);
    }
    for (const lesson of list.lessons) {
      const figure = /** @type {HTMLElement | null} */ (page.querySelector(`.try[data-lesson="${CSS.escape(lesson.id)}"]`));
      // The board lives on in its figure's event listeners.
      if (figure) new TryBoard(figure, variant, lesson);
    }
    page.dataset.loaded = 'true';
  } finally {
    if (!page.dataset.loaded) page.dataset.loaded = 'error';
  }
}

drawPictures();
const page = document.getElementById('variant');
if (page) variantPage(page);
