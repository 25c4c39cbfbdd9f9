// The reader's display choices, kept in this browser (localStorage): the page theme
// (`system`, `light` or `dark`) on `<html data-theme>`, and the board colours (`brown`,
// `blue` or `green`) on `<html>` and `<body>` as `data-board-theme` (board.css reads it).
// A classic script loaded from <head>, not a module: it runs before the body is parsed, so
// the first paint already has the right colours (the CSP allows no inline script, and a
// module would run only after parsing). style.css follows the system while the choice is
// `system`. Once the page is parsed it wires the header's "Display" menu.
(function () {
  var THEME = 'oddboard.theme';
  var BOARD = 'oddboard.boardTheme';
  var CHOICES = { theme: ['system', 'light', 'dark'], board: ['brown', 'blue', 'green'] };

  /**
   * @param {string} key
   * @param {string[]} allowed
   * @returns {string}
   */
  function read(key, allowed) {
    var value = null;
    // Storage can be refused (privacy settings, a sandboxed frame): the defaults stand.
    try { value = localStorage.getItem(key); } catch (e) { /* defaults */ }
    return allowed.indexOf(value) >= 0 ? value : allowed[0];
  }

  // Sets the choices on the page, and on the menu's radio buttons once they exist.
  function apply() {
    var root = document.documentElement;
    root.dataset.theme = read(THEME, CHOICES.theme);
    root.dataset.boardTheme = read(BOARD, CHOICES.board);
    if (!document.body) return;
    document.body.dataset.boardTheme = root.dataset.boardTheme;
    var inputs = /** @type {NodeListOf<HTMLInputElement>} */ (document.querySelectorAll('input[name="theme"], input[name="board-theme"]'));
    for (var i = 0; i < inputs.length; i++) {
      var chosen = inputs[i].name === 'theme' ? root.dataset.theme : root.dataset.boardTheme;
      inputs[i].checked = inputs[i].value === chosen;
    }
  }

  /** @param {Event} e */
  function choose(e) {
    var input = /** @type {HTMLInputElement} */ (e.target);
    if (input.name !== 'theme' && input.name !== 'board-theme') return;
    try { localStorage.setItem(input.name === 'theme' ? THEME : BOARD, input.value); } catch (err) { /* this page only */ }
    // Set from the input itself too, for a browser that keeps nothing.
    if (input.name === 'theme') document.documentElement.dataset.theme = input.value;
    else document.documentElement.dataset.boardTheme = document.body.dataset.boardTheme = input.value;
  }

  function wire() {
    apply();
    var menu = /** @type {HTMLDetailsElement} */ (document.getElementById('display-menu'));
    if (!menu) return;
    menu.addEventListener('change', choose);
    // A menu closes as menus do: a click elsewhere, or Escape (back to its summary).
    document.addEventListener('click', function (e) {
      if (menu.open && !menu.contains(/** @type {Node} */ (e.target))) menu.open = false;
    });
    menu.addEventListener('keydown', function (e) {
      if (e.key === 'Escape' && menu.open) { menu.open = false; menu.querySelector('summary').focus(); }
    });
  }

  apply();
  // Another tab changed a choice: follow it.
  window.addEventListener('storage', apply);
  document.addEventListener('DOMContentLoaded', wire);
})();
