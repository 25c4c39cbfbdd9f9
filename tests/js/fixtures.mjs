// Boards and snapshots the unit tests share, shaped as the server sends them
// (crates/rules/src/snapshot.rs), and the path of the scripts under test.

/** The client's modules, imported by their file URL as the browser imports them. */
export const STATIC = new URL('../../crates/server/static/', import.meta.url);

/** An ordinary 8x8 board. */
export const MAIN = {
  id: 'main', files: 8, ranks: 8, checkered: true, holes: [], zones: [],
  file_labels: ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'], rank_labels: ['1', '2', '3', '4', '5', '6', '7', '8'],
};

/** Duel Chess's side board: three files x..z, three ranks, one hole. */
export const DUEL = {
  id: 'duel', files: 3, ranks: 3, checkered: false, holes: ['y2'], zones: [],
  file_labels: ['X', 'Y', 'Z'], rank_labels: ['1', '2', '3'],
};

/** A board of twelve files and ranks, whose rank labels have two digits. */
export const WIDE = {
  id: 'main', files: 12, ranks: 12, checkered: true, holes: [], zones: [],
  file_labels: 'ABCDEFGHIJKL'.split(''), rank_labels: Array.from({ length: 12 }, (_, i) => String(i + 1)),
};

/** A snapshot of `boards` with these legal actions. */
export function snapshot(boards, legal_actions, pieces = []) {
  return { variant: 'test', position: '', boards, pieces, turn: 'white', ply: 0, last_action: null, check: [], legal_actions, outcome: null };
}
