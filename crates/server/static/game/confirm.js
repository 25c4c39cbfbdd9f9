// Buttons that act only on a second click (Resign, Abort), as on lichess: the first click
// turns the button into "Confirm …?" for a few seconds, the second acts, and waiting
// puts it back.

const CONFIRM_MS = 3000;

/// Wires `button` to call `action` on a confirmed click; returns a function that puts the
/// button back to its first state.
/**
 * @param {HTMLButtonElement} button
 * @param {string} confirmText
 * @param {() => void} action
 * @returns {() => void}
 */
export function confirmButton(button, confirmText, action) {
  const first = button.textContent;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  const reset = () => {
    clearTimeout(timer);
    timer = null;
    delete button.dataset.confirm;
    button.classList.remove('confirming');
    button.textContent = first;
  };
  button.addEventListener('click', () => {
    if (button.dataset.confirm) {
      reset();
      action();
      return;
    }
    button.dataset.confirm = 'armed';
    button.classList.add('confirming');
    button.textContent = confirmText;
    timer = setTimeout(reset, CONFIRM_MS);
  });
  return reset;
}
