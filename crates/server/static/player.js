// The player page: results per variant and the list of past games, filtered by variant and
// result, newest first, paged (`GET /api/users/{name}/games`).

import { api, outcomeText, wireHeader, esc } from './common.js';

wireHeader();
const root = document.getElementById('player');
const name = root.dataset.username;
const $ = (id) => document.getElementById(id);
const VARIANT_NAMES = {};
for (const o of document.querySelectorAll('#filter-variant option')) if (o.value) VARIANT_NAMES[o.value] = o.textContent;
const PER_PAGE = 20;
let page = 1;

function myResult(g) {
  if (!g.outcome || g.outcome.reason === 'aborted') return null;
  if (!g.outcome.winner) return 'draw';
  const mine = g.white_name && g.white_name.toLowerCase() === name.toLowerCase() ? 'white' : 'black';
  return g.outcome.winner === mine ? 'win' : 'loss';
}

async function loadRatings() {
  // Glicko-2 ratings per variant from the player's finger (`GET /api/users/{name}`), and
  // every finished game counted by result (`GET /api/users/{name}/results`).
  const ratings = {};
  const results = {};
  try {
    const r = await api(`/api/users/${encodeURIComponent(name)}`);
    for (const entry of (r.finger || r).ratings || []) ratings[entry.variant] = entry;
    const counted = await api(`/api/users/${encodeURIComponent(name)}/results`);
    for (const entry of counted.results) results[entry.variant] = entry;
  } catch (_) { /* unknown player: the games list says so */ }
  const rows = [];
  for (const [variant, label] of Object.entries(VARIANT_NAMES)) {
    const rating = ratings[variant];
    const ratingText = rating ? `${Math.round(rating.rating)}${rating.provisional ? '?' : ''} (${rating.games} rated)` : '—';
    const r = results[variant] || { finished: 0, wins: 0, draws: 0, losses: 0 };
    rows.push(`<tr><td>${esc(label)}</td><td>${esc(ratingText)}</td><td>${r.finished}</td><td>${r.wins}</td><td>${r.draws}</td><td>${r.losses}</td></tr>`);
  }
  $('ratings').innerHTML = rows.join('');
}

async function loadGames() {
  const variant = $('filter-variant').value;
  const result = $('filter-result').value;
  let data;
  try {
    data = await api(`/api/users/${encodeURIComponent(name)}/games?page=${page}&per_page=${PER_PAGE}${variant ? `&variant=${variant}` : ''}${result ? `&result=${result}` : ''}`);
  } catch (e) {
    $('games').innerHTML = `<tr><td colspan="8">${esc(e.message)}</td></tr>`;
    return;
  }
  const games = data.games;
  $('games').innerHTML = games.map((g) => {
    const date = new Date(g.created_at).toLocaleDateString();
    const aborted = g.outcome && g.outcome.reason === 'aborted';
    const res = g.outcome && !aborted ? (g.outcome.winner === 'white' ? '1-0' : g.outcome.winner === 'black' ? '0-1' : '½-½') : g.status;
    return `<tr><td>${esc(date)}</td><td>${esc(VARIANT_NAMES[g.variant] || g.variant)}</td>`
      + `<td><a href="/player/${esc(g.white_name || '')}">${esc(g.white_name || '?')}</a></td>`
      + `<td><a href="/player/${esc(g.black_name || '')}">${esc(g.black_name || '?')}</a></td>`
      + `<td>${esc(res)}</td><td>${esc(g.outcome ? outcomeText(g.outcome) : '')}</td><td>${g.action_count}</td>`
      + `<td><a href="/${g.status === 'active' ? 'game' : 'replay'}/${esc(g.game_id)}">${g.status === 'active' ? 'Watch' : 'Replay'}</a></td></tr>`;
  }).join('') || '<tr><td colspan="8" class="muted">No games.</td></tr>';
  $('page-label').textContent = `Page ${page}`;
  $('prev-page').disabled = page <= 1;
  $('next-page').disabled = data.games.length < PER_PAGE;
}

$('filter-variant').addEventListener('change', () => { page = 1; loadGames(); });
$('filter-result').addEventListener('change', () => { page = 1; loadGames(); });
$('prev-page').addEventListener('click', () => { page = Math.max(1, page - 1); loadGames(); });
$('next-page').addEventListener('click', () => { page += 1; loadGames(); });
loadGames();
loadRatings();
