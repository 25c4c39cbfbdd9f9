// The player page: ratings and results per variant (`GET /api/users/{name}` and
// `/results`), a rating chart per variant drawn from the rating history
// (`/ratings/history`), and the player's games, filtered and paged, each with a small picture
// of its final position (`GET /api/games/{id}/board`, drawn by miniboard.js).
//
// Everything the scripts fill in has its room from the first paint (the ratings rows are
// rendered by the server, the chart has a fixed shape, the games come last on the page with
// their pager above them), so the page does not move as it loads.

import { api, clockText, outcomeText, scoreText, wireHeader } from './common.js';
import { $, esc } from './dom.js';
import { miniBoardSvg } from './miniboard.js';
import { chartSvg, dateText } from './rating-chart.js';

wireHeader();
const root = $('player');
const name = root.dataset.username;
const userPath = `/api/users/${encodeURIComponent(name)}`;
/** @type {Record<string, string>} */
const VARIANT_NAMES = {};
/** @type {HTMLSelectElement} */
const chartVariant = $('chart-variant');
/** @type {HTMLSelectElement} */
const filterVariant = $('filter-variant');
/** @type {HTMLSelectElement} */
const filterResult = $('filter-result');
/** @type {HTMLButtonElement} */
const prevPage = $('prev-page');
/** @type {HTMLButtonElement} */
const nextPage = $('next-page');
for (const o of chartVariant.options) VARIANT_NAMES[o.value] = o.textContent;
const PER_PAGE = 20;
/// Board requests in flight at once: a page of games asks for up to PER_PAGE.
const BOARD_REQUESTS = 4;
let page = 1;
/// Rating history by variant, oldest first.
/** @type {Record<string, import('./types.js').RatingEntry[]>} */
const history = {};
/// Finished games' boards by game id (they never change), for paging back; at most
/// BOARDS_KEPT.
/** @type {Map<string, any>} */
const boards = new Map();
const BOARDS_KEPT = 200;
/// Which list of games is the latest asked for: an older answer does not replace it.
let listed = 0;

/** @param {string | null} other */
const samePlayer = (other) => !!other && other.toLowerCase() === name.toLowerCase();

/**
 * @param {import('./types.js').GameSummary} g
 * @returns {'win' | 'draw' | 'loss' | null} the player's
 */
function myResult(g) {
  if (!g.outcome || g.outcome.reason === 'aborted') return null;
  if (!g.outcome.winner) return 'draw';
  return g.outcome.winner === (samePlayer(g.white_name) ? 'white' : 'black') ? 'win' : 'loss';
}

// ---- ratings and results -------------------------------------------------------------------

/** @returns {Promise<Record<string, { rating: number, provisional: boolean }>>} the player's ratings by variant */
async function loadRatings() {
  /** @type {Record<string, { rating: number, provisional: boolean }>} */
  const ratings = {};
  /** @type {Record<string, { finished: number, wins: number, draws: number, losses: number }>} */
  const results = {};
  try {
    const finger = await api(userPath);
    for (const entry of finger.ratings || []) ratings[entry.variant] = entry;
    const counted = await api(`${userPath}/results`);
    for (const entry of counted.results) results[entry.variant] = entry;
  } catch (_) { /* unknown player: the games list says so */ }
  for (const row of /** @type {HTMLTableElement} */ ($('ratings')).rows) {
    const variant = row.dataset.variant;
    const rating = ratings[variant];
    const r = results[variant] || { finished: 0, wins: 0, draws: 0, losses: 0 };
    const cells = row.cells;
    cells[1].textContent = rating ? `${Math.round(rating.rating)}${rating.provisional ? '?' : ''}` : '—';
    cells[2].textContent = String(r.finished);
    cells[3].textContent = `${r.wins} / ${r.draws} / ${r.losses}`;
  }
  return ratings;
}

// ---- the rating chart ----------------------------------------------------------------------

/**
 * @param {string} variant
 * @param {Record<string, { provisional: boolean }>} ratings
 */
function showChart(variant, ratings) {
  const entries = history[variant] || [];
  const label = VARIANT_NAMES[variant] || variant;
  const caption = $('chart-caption');
  if (!entries.length) {
    $('chart').innerHTML = `<p class="chart-empty muted">No rated ${esc(label)} games yet.</p>`;
    caption.textContent = `${label}: no rating history.`;
    $('chart-table').innerHTML = '<tr><td colspan="3" class="muted">No rated games.</td></tr>';
    return;
  }
  const first = Math.round(entries[0].rating);
  const now = Math.round(entries[entries.length - 1].rating);
  const provisional = ratings[variant] && ratings[variant].provisional ? ' (provisional)' : '';
  const games = entries.length === 1 ? '1 rated game' : `${entries.length} rated games`;
  caption.textContent = `${label}: ${games}, from ${first} to ${now}; now ${now}${provisional}.`;
  $('chart').innerHTML = chartSvg(entries, 'chart-caption', $('chart').clientWidth);
  $('chart-table').innerHTML = entries.map((e, i) => `<tr><td><a href="/replay/${esc(e.game_id)}">${i + 1}</a></td>`
    + `<td>${esc(dateText(e.created_at))}</td><td>${Math.round(e.rating)}</td></tr>`).join('');
}

/** @param {Record<string, { provisional: boolean }>} ratings */
async function loadChart(ratings) {
  try {
    const data = await api(`${userPath}/ratings/history`);
    for (const entry of data.history) (history[entry.variant] ||= []).push(entry);
  } catch (_) { /* unknown player: no history */ }
  // The variant played most, rated, is the one shown first.
  const counts = Object.entries(history).map(([v, list]) => /** @type {[string, number]} */ ([v, list.length]));
  counts.sort((a, b) => b[1] - a[1]);
  if (counts.length) chartVariant.value = counts[0][0];
  const redraw = () => showChart(chartVariant.value, ratings);
  redraw();
  chartVariant.addEventListener('change', redraw);
  // A new width redraws the picture only: the caption and the table do not depend on it.
  let width = $('chart').clientWidth;
  new ResizeObserver(() => {
    if ($('chart').clientWidth === width) return;
    width = $('chart').clientWidth;
    const entries = history[chartVariant.value] || [];
    if (entries.length) $('chart').innerHTML = chartSvg(entries, 'chart-caption', width);
  }).observe($('chart'));
}

// ---- games ---------------------------------------------------------------------------------

/// Fills each `.mini-box[data-game]` of the list with its game's board, a few requests at a
/// time; a later page replaces the list, and boards of rows gone are not drawn.
/** @param {HTMLElement} list */
async function drawBoards(list) {
  const queue = /** @type {HTMLElement[]} */ ([...list.querySelectorAll('.mini-box[data-game]')]);
  const worker = async () => {
    for (let box = queue.shift(); box; box = queue.shift()) {
      const id = box.dataset.game;
      try {
        let board = boards.get(id);
        if (!board) {
          board = await api(`/api/games/${encodeURIComponent(id)}/board`);
          if (board.status === 'finished' || board.status === 'aborted') {
            if (boards.size >= BOARDS_KEPT) boards.delete(boards.keys().next().value);
            boards.set(id, board);
          }
        }
        if (!box.isConnected) continue;
        const orientation = samePlayer(board.black) && !samePlayer(board.white) ? 'black' : 'white';
        const label = `${board.status === 'active' ? 'Position' : 'Final position'} of ${board.white || '?'} against ${board.black || '?'}, ${VARIANT_NAMES[board.variant] || board.variant}`;
        box.innerHTML = miniBoardSvg(board.rules, { orientation, label });
        box.classList.add('drawn');
      } catch (_) {
        box.textContent = 'No picture';
      }
    }
  };
  await Promise.all(Array.from({ length: BOARD_REQUESTS }, worker));
}

/**
 * @param {import('./types.js').GameSummary} g
 * @returns {string}
 */
function gameRow(g) {
  const aborted = g.outcome && g.outcome.reason === 'aborted';
  const score = g.outcome && !aborted ? scoreText(g.outcome) : g.status;
  const mine = myResult(g);
  /** @param {string | null} who */
  const player = (who) => (who ? `<a href="/player/${encodeURIComponent(who)}">${esc(who)}</a>` : '?');
  const watch = g.status === 'active';
  return `<tr data-game="${esc(g.game_id)}"${mine ? ` class="res-${mine}"` : ''}>`
    + `<td class="mini-cell"><div class="mini-box" data-game="${esc(g.game_id)}"></div></td>`
    + '<td class="game-info">'
    + `<div class="game-players">${player(g.white_name)} – ${player(g.black_name)}</div>`
    + `<div class="muted">${esc(VARIANT_NAMES[g.variant] || g.variant)} · ${esc(clockText(g.clock))}${g.rated ? ' · rated' : ''} · ${esc(dateText(g.created_at))}</div>`
    + `<div><span class="score">${esc(score)}</span> ${esc(g.outcome ? outcomeText(g.outcome) : '')} · ${g.action_count} moves</div>`
    + '</td>'
    + `<td><a href="/${watch ? 'game' : 'replay'}/${esc(g.game_id)}">${watch ? 'Watch' : 'Replay'}</a></td></tr>`;
}

async function loadGames() {
  const variant = filterVariant.value;
  const result = filterResult.value;
  const query = new URLSearchParams({ page: String(page), per_page: String(PER_PAGE) });
  if (variant) query.set('variant', variant);
  if (result) query.set('result', result);
  root.dataset.boards = 'loading';
  const mine = ++listed;
  let data;
  try {
    data = await api(`${userPath}/games?${query}`);
  } catch (e) {
    if (mine === listed) $('games').innerHTML = `<tr><td colspan="3">${esc(e.message)}</td></tr>`;
    return;
  }
  if (mine !== listed) return;
  $('games').innerHTML = data.games.map(gameRow).join('') || '<tr><td colspan="3" class="muted">No games.</td></tr>';
  $('page-label').textContent = `Page ${page}`;
  prevPage.disabled = page <= 1;
  nextPage.disabled = data.games.length < PER_PAGE;
  await drawBoards($('games'));
  if (mine === listed) root.dataset.boards = 'drawn';
}

filterVariant.addEventListener('change', () => { page = 1; loadGames(); });
filterResult.addEventListener('change', () => { page = 1; loadGames(); });
prevPage.addEventListener('click', () => { page = Math.max(1, page - 1); loadGames(); });
nextPage.addEventListener('click', () => { page += 1; loadGames(); });
loadGames();
loadRatings().then(loadChart).then(() => { root.dataset.chart = 'drawn'; });
