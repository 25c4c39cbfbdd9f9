// The two helpers every script of the pages shares for the markup: finding an element of the
// page by its id, and escaping text put into HTML or SVG markup. Imported by the pages'
// modules alike; it touches the document only when `$` is called, so the unit tests
// (tests/js/) can import what uses `esc` under node.

/**
 * The page's element with id `id`. The templates hold every id the scripts ask for; the
 * element type is what the caller declares (`@type {HTMLInputElement}`), as a template's
 * markup decides it and no script can check it better than the browser tests do.
 * @template {Element} [T=HTMLElement]
 * @param {string} id
 * @returns {T}
 */
export function $(id) {
  return /** @type {T} */ (/** @type {unknown} */ (document.getElementById(id)));
}

/** @type {Record<string, string>} */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * Escapes text for HTML and SVG markup (element text and quoted attribute values).
 * @param {unknown} text
 * @returns {string}
 */
export function esc(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
