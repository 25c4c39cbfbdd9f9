// The move strip of a phone's game page (as lichess mobile has): the moves in one row above
// the board, numbered, the shown one marked and kept in view. A tap shows that move's
// position; a swipe scrolls the row to earlier moves. The panel's move list says the same for
// assistive technology, so the strip is hidden from it and its buttons take no tab stop.

/** @typedef {import('../types.js').MoveView} MoveView */

/**
 * Draws `moves` into `strip`, marking ply `current` (the number of moves for the live
 * position), and scrolls so that the marked move is seen.
 * @param {HTMLElement} strip
 * @param {MoveView[]} moves
 * @param {number} current
 * @param {(ply: number) => void} onJump
 */
export function renderStrip(strip, moves, current, onJump) {
  strip.replaceChildren();
  if (!moves.length) {
    const empty = document.createElement('span');
    empty.className = 'strip-empty';
    empty.textContent = 'No moves yet';
    strip.appendChild(empty);
    return;
  }
  /** @type {HTMLButtonElement | null} */
  let marked = null;
  moves.forEach((move, i) => {
    if (i % 2 === 0) {
      const number = document.createElement('span');
      number.className = 'strip-number';
      number.textContent = `${i / 2 + 1}.`;
      strip.appendChild(number);
    }
    const b = document.createElement('button');
    b.type = 'button';
    b.tabIndex = -1;
    b.className = 'strip-move';
    b.dataset.ply = String(i + 1);
    b.textContent = move.human;
    if (current === i + 1) {
      b.classList.add('current');
      marked = b;
    }
    b.addEventListener('click', () => onJump(i + 1));
    strip.appendChild(b);
  });
  if (current === moves.length || !marked) {
    strip.scrollLeft = strip.scrollWidth;
  } else {
    strip.scrollLeft = marked.offsetLeft - (strip.clientWidth - marked.offsetWidth) / 2;
  }
}
