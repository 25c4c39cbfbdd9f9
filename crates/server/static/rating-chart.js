// The player page's rating chart as SVG markup, from the rating history alone (no page):
// player.js puts it in its box and redraws it when the box changes width; the unit tests
// (tests/js/) read its numbers.

import { esc } from './dom.js';

/// The chart is drawn in the pixels of its box (player.css gives the box its 5:2 shape), so
/// its labels are the same size on a phone as on a desktop; it is drawn again when the box
/// changes width.
const PAD = { left: 44, right: 48, top: 12, bottom: 34 };
const MIN_WIDTH = 280;

/// Round gridline values covering [lo, hi]: steps of 25, 50, 100 or 200 points.
/**
 * @param {number} lo
 * @param {number} hi
 * @returns {number[]}
 */
export function gridValues(lo, hi) {
  const step = [25, 50, 100, 200, 500].find((s) => (hi - lo) / s <= 5) || 1000;
  const start = Math.floor(lo / step) * step;
  const values = [];
  for (let v = start; v <= hi + step; v += step) {
    values.push(v);
    if (v >= hi) break;
  }
  return values;
}

/// A date as the reader's locale writes it.
/**
 * @param {string} iso
 * @returns {string}
 */
export const dateText = (iso) => new Date(iso).toLocaleDateString();

/// The SVG of one variant's history (at least one entry), `width` pixels wide, named by
/// `captionId`.
/**
 * @param {import('./types.js').RatingEntry[]} entries
 * @param {string} captionId
 * @param {number} width
 * @returns {string}
 */
export function chartSvg(entries, captionId, width) {
  const W = Math.max(MIN_WIDTH, Math.round(width));
  const H = Math.round(W * 0.4);
  const ratings = entries.map((e) => e.rating);
  const grid = gridValues(Math.min(...ratings), Math.max(...ratings));
  const lo = grid[0];
  const hi = grid[grid.length - 1] === lo ? lo + 50 : grid[grid.length - 1];
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  /** @param {number} i */
  const x = (i) => PAD.left + (entries.length === 1 ? plotW / 2 : (i * plotW) / (entries.length - 1));
  /** @param {number} r */
  const y = (r) => PAD.top + plotH - ((r - lo) / (hi - lo)) * plotH;
  let out = `<svg class="rating-chart" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${captionId}" focusable="false">`;
  out += `<rect class="chart-bg" x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}"/>`;
  for (const v of grid) {
    out += `<line class="chart-grid" x1="${PAD.left}" x2="${PAD.left + plotW}" y1="${y(v)}" y2="${y(v)}"/>`;
    out += `<text class="chart-axis" x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end">${v}</text>`;
  }
  // The x axis counts rated games; its ends say when the first and the last were played.
  const last = entries.length - 1;
  out += `<text class="chart-axis" x="${PAD.left}" y="${H - 18}" text-anchor="start">game 1</text>`;
  out += `<text class="chart-axis" x="${PAD.left}" y="${H - 4}" text-anchor="start">${esc(dateText(entries[0].created_at))}</text>`;
  if (last > 0) {
    out += `<text class="chart-axis" x="${PAD.left + plotW}" y="${H - 18}" text-anchor="end">game ${last + 1}</text>`;
    out += `<text class="chart-axis" x="${PAD.left + plotW}" y="${H - 4}" text-anchor="end">${esc(dateText(entries[last].created_at))}</text>`;
  }
  const points = entries.map((e, i) => `${x(i).toFixed(1)},${y(e.rating).toFixed(1)}`).join(' ');
  if (entries.length > 1) out += `<polyline class="chart-line" points="${points}"/>`;
  entries.forEach((e, i) => {
    const r = Math.round(e.rating);
    out += `<circle class="chart-point" cx="${x(i).toFixed(1)}" cy="${y(e.rating).toFixed(1)}" r="${entries.length > 60 ? 2 : 3.5}" data-rating="${r}">`
      + `<title>Game ${i + 1}, ${esc(dateText(e.created_at))}: ${r}</title></circle>`;
  });
  const now = Math.round(ratings[last]);
  out += `<text class="chart-current" x="${x(last) + 8}" y="${y(ratings[last]) + 4}">${now}</text>`;
  return `${out}</svg>`;
}
