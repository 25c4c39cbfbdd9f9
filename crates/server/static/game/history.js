// Browsing a live game: the rules snapshot of every position the page has seen, by ply, so
// that a click on a move or the arrow keys can show it while the game goes on. The positions
// before the page's first snapshot come from the stored game (`GET /api/games/{id}/replay`,
// which serves a game in progress too, dice games included: the server rebuilds them with
// the seed, which it reveals only after the end).

import { api } from '../common.js';

export class History {
  /** @param {string} gameId */
  constructor(gameId) {
    this.gameId = gameId;
    /** @type {import('../types.js').Snapshot[]} */
    this.positions = [];
    /** @type {number | null} */
    this.view = null; // the ply shown, or null for the live position
    /** @type {Promise<{ snapshots: import('../types.js').Snapshot[], actions: import('../types.js').MoveView[] } | null> | null} */
    this.fetching = null;
  }

  /// A fresh snapshot: forget what came before (a takeback or a resync may have changed it).
  /**
   * @param {import('../types.js').MoveView[]} moves
   * @param {import('../types.js').Snapshot} rules
   */
  reset(moves, rules) {
    this.positions = [];
    this.positions[moves.length] = rules;
    if (this.view !== null && this.view > moves.length) this.view = null;
  }

  /**
   * @param {number} ply
   * @param {import('../types.js').Snapshot} rules
   */
  record(ply, rules) {
    this.positions[ply] = rules;
  }

  /// Drops the positions after `ply` (a takeback).
  /** @param {number} ply */
  truncate(ply) {
    this.positions.length = Math.min(this.positions.length, ply + 1);
    if (this.view !== null && this.view > ply) this.view = null;
  }

  /**
   * @param {number} ply
   * @returns {import('../types.js').Snapshot | undefined}
   */
  at(ply) {
    return this.positions[ply];
  }

  /// The first position, when known.
  /** @returns {import('../types.js').Snapshot | null} */
  start() {
    return this.positions[0] || null;
  }

  /// Fetches the earlier positions of a game this page joined after its start. Keeps only
  /// what agrees with the moves the page holds (the game may have moved on meanwhile).
  /**
   * @param {import('../types.js').MoveView[]} moves
   * @returns {Promise<boolean>} whether positions were added
   */
  async fill(moves) {
    if (!moves.length || this.positions[0] || this.fetching) return false;
    this.fetching = api(`/api/games/${this.gameId}/replay`).catch(/** @returns {null} */ () => null);
    const data = await this.fetching;
    this.fetching = null;
    if (!data || !Array.isArray(data.snapshots) || !Array.isArray(data.actions)) return false;
    const n = Math.min(moves.length, data.actions.length);
    for (let i = 0; i < n; i++) {
      if (data.actions[i].machine !== moves[i].machine) return false;
    }
    for (let ply = 0; ply <= n && ply < data.snapshots.length; ply++) {
      if (!this.positions[ply]) this.positions[ply] = data.snapshots[ply];
    }
    return true;
  }
}
