// The leaderboard page: the server renders every variant's table with the chosen one shown
// (`/leaderboard?variant=…`); the links between them switch here without a reload, and the
// address follows, so a link to it shows the same table.

import { wireHeader } from './common.js';

wireHeader();
const tabs = /** @type {HTMLAnchorElement[]} */ ([...document.querySelectorAll('.lb-tabs a[data-variant]')]);
const sections = /** @type {HTMLElement[]} */ ([...document.querySelectorAll('.lb-section[data-variant]')]);

/** @param {string} variant */
function show(variant) {
  for (const tab of tabs) {
    if (tab.dataset.variant === variant) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  for (const section of sections) section.hidden = section.dataset.variant !== variant;
}

for (const tab of tabs) {
  tab.addEventListener('click', (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    show(tab.dataset.variant);
    history.replaceState(null, '', tab.href);
  });
}
