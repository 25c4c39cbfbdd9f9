// The pages' one door to the browser tests (crates/server/tests/it/browser*.rs). A page's
// state lives in its own module and is passed to the modules that need it; but WebDriver's
// `execute_script` runs in the page's global scope and cannot reach a module's variables, so
// a page shows its state object on `window` here, under a name the tests read. No script of
// the pages reads these names back.

/**
 * What the tests read: the page's state object (`window.oddboard`: the game page's `game`,
 * `socket` and `clockAt`, the replay's `data`, the lobby's `lobby`) and the sounds the game
 * page asked for (`window.oddboardSounds`).
 * @typedef {'oddboard' | 'oddboardSounds'} TestHook
 */

/**
 * Shows `value` to the browser tests as `window[name]`.
 * @param {TestHook} name
 * @param {object} value
 */
export function showToTests(name, value) {
  /** @type {Record<TestHook, object>} */ (/** @type {unknown} */ (window))[name] = value;
}
