// Turn signals beyond the board: "Your turn" in the tab title while it is the viewer's turn,
// and, when the player switched them on, a browser notification when a game starts or their
// turn comes while the tab is in the background. Permission is asked only on a click of the
// switch (browsers refuse, and people dislike, prompts that come on their own); the choice
// is kept in the browser (localStorage).

const KEY = 'oddboard.notify';
const baseTitle = document.title;

/// Puts "Your turn" before the page's title while `yours` holds.
/** @param {boolean} yours */
export function setTurnTitle(yours) {
  const title = yours ? `Your turn · ${baseTitle}` : baseTitle;
  if (document.title !== title) document.title = title;
}

function supported() {
  return typeof window.Notification === 'function';
}

export function notifyOn() {
  try {
    return supported() && Notification.permission === 'granted' && localStorage.getItem(KEY) === '1';
  } catch (_) { return false; }
}

/// Shows a notification when the switch is on and the page is not being looked at.
/**
 * @param {string} title
 * @param {string} body
 */
export function notify(title, body) {
  if (!notifyOn() || document.visibilityState === 'visible') return;
  try {
    const n = new Notification(title, { body, tag: 'oddboard-game' });
    n.onclick = () => { window.focus(); n.close(); };
  } catch (_) { /* some browsers allow notifications only from a service worker */ }
}

/// Wires the switch: a click asks for permission when needed and turns notifications on or off.
/** @param {HTMLButtonElement} button */
export function wireNotifyToggle(button) {
  const show = () => {
    button.textContent = notifyOn() ? 'Notifications on' : 'Notify me';
  };
  if (!supported()) {
    button.hidden = true;
    return;
  }
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      if (notifyOn()) {
        localStorage.removeItem(KEY);
      } else {
        const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
        if (permission === 'granted') localStorage.setItem(KEY, '1');
        else button.title = 'The browser does not allow notifications from this site.';
      }
    } catch (_) { /* storage refused: stays off */ }
    show();
  });
  show();
}
