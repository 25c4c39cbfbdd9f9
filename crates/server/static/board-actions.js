// How the board turns legal actions into clicks: the machine notation of every variant
// (docs/rules/*.md) read without any rule of its own.
// - The square tokens of an action are the substrings matching /[a-z][0-9]{1,2}/ that name
//   a square of one of the boards (`e4`, `a10`, Duel squares `x1`..`z3`). The first is the
//   square of the piece that acts, the second its target. Tokens naming no square (a Chazz
//   self-destruct `a1a0`) and actions without two on-board tokens (`pass`, Davey Drehs'
//   `return:c1` and `heal:e1`) are "special": they get buttons of their own.
// - Actions are grouped by (first, second) token. When a group has one action, dropping or
//   clicking on the target plays it. When it has several, a picker opens: their third square
//   tokens (a Duel `@x1` placement, a `>c3` return square, the attack square of a Davey Drehs
//   `g1@d6xe8` teleport) are highlighted on the board to be clicked, and every candidate also
//   has a button, labelled from its separators and suffix: a trailing letter is a promotion
//   (`a7a8q`), `x` an attack, `@` a teleport or placement, `^` a cannon shot, `>` a return,
//   `/` a Davey Drehs pair of pawns the action declares (`e3e4/d4e4`: "pair d4–e4").
// - An `@` straight after the first square (`g1@e5`, a Davey Drehs knight teleport) makes a
//   "teleport" action. A teleport may land where the same knight's ordinary move goes, so
//   mixing the two would ask "teleport or move?" on every knight move: the board plays the
//   ordinary actions by default and offers the teleports only once the player has asked for
//   them (the board's teleport switch), as a separate mode.

/** @typedef {import('./types.js').BoardSpec} BoardSpec */

/**
 * A legal action the board plays by clicks: its squares, board and label.
 * @typedef {object} BoardAction
 * @property {string} action the machine notation
 * @property {string} board the id of the board it starts on
 * @property {string} from
 * @property {string} to
 * @property {string[]} extra the square tokens after `to`
 * @property {string} suffix what follows the last square (a promotion letter)
 * @property {boolean} teleport
 * @property {string} label
 */

/**
 * An action with no two squares on the boards: a button of its own.
 * @typedef {{ action: string, label: string }} SpecialAction
 */

/**
 * A snapshot's legal actions as the board uses them, with the square index they were read by.
 * @typedef {{ board: BoardAction[], special: SpecialAction[], index: Map<string, string> }} ParsedActions
 */

/** @typedef {{ square: string, at: number }} Token */

const SQUARE_RE = /[a-z][0-9]{1,2}/g;
/** @type {Record<string, string>} */
const PROMOTION_NAMES = { q: 'Queen', r: 'Rook', b: 'Bishop', n: 'Knight', k: 'King', d: 'Dabbabah' };
/// Promotion letters in the order a premove prefers them (a queen first, as lichess does).
const PROMOTION_ORDER = 'qrbndk';

/// The square name of file index f and rank index r on a board.
/**
 * @param {BoardSpec} board
 * @param {number} f
 * @param {number} r
 * @returns {string}
 */
export function squareName(board, f, r) {
  return board.file_labels[f].toLowerCase() + board.rank_labels[r];
}

/// The name of a square as people read it: upper case off the main board (`X1`).
/**
 * @param {string} boardId
 * @param {string} square
 * @returns {string}
 */
export function squareLabel(boardId, square) {
  return boardId === 'main' ? square : square.toUpperCase();
}

/// Map from square name to board id, for every square that exists.
/**
 * @param {BoardSpec[]} boards
 * @returns {Map<string, string>}
 */
export function squareIndex(boards) {
  /** @type {Map<string, string>} */
  const index = new Map();
  for (const board of boards) {
    const holes = new Set(board.holes);
    for (let f = 0; f < board.files; f++) {
      for (let r = 0; r < board.ranks; r++) {
        const name = squareName(board, f, r);
        if (!holes.has(name)) index.set(name, board.id);
      }
    }
  }
  return index;
}

/// Splits legal actions into board actions (with from, to, extra squares and whether they
/// are teleports) and special actions (buttons). See the comment at the top of this file.
/**
 * @param {Pick<import('./types.js').Snapshot, 'boards' | 'legal_actions'>} snapshot
 * @returns {ParsedActions}
 */
export function parseActions(snapshot) {
  const index = squareIndex(snapshot.boards);
  /** @type {BoardAction[]} */
  const board = [];
  /** @type {SpecialAction[]} */
  const special = [];
  for (const action of snapshot.legal_actions || []) {
    /** @type {Token[]} */
    const tokens = [];
    if (!action.includes(':')) {
      for (const m of action.matchAll(SQUARE_RE)) tokens.push({ square: m[0], at: m.index });
    }
    const onBoard = tokens.every((t) => index.has(t.square));
    if (tokens.length < 2 || !onBoard) {
      special.push({ action, label: specialLabel(action, tokens) });
      continue;
    }
    const [from, to, ...extra] = tokens;
    const last = extra.length ? extra[extra.length - 1] : to;
    const suffix = action.slice(last.at + last.square.length);
    board.push({
      action,
      board: index.get(from.square),
      from: from.square,
      to: to.square,
      extra: extra.map((t) => t.square),
      suffix,
      teleport: action.slice(from.at + from.square.length, to.at) === '@',
      label: candidateLabel(action, from, to, extra, suffix, index),
    });
  }
  // A Davey Drehs pawn forming a row of pawns: the plain action beside declared pairings
  // (`e3e4/d4e4`) pairs from the a-file side, and its label says so.
  for (const a of board) {
    const declared = board.some((b) => b.from === a.from && b.to === a.to && b.action.includes('/'));
    if (declared && !a.action.includes('/')) a.label += ', pawns pair from the a-file side';
  }
  return { board, special, index };
}

/**
 * @param {string} action
 * @param {Token[]} tokens
 * @returns {string}
 */
function specialLabel(action, tokens) {
  if (action === 'pass') return 'Pass';
  const [word, square] = action.split(':');
  if (square) {
    if (word === 'heal') return `Heal the king on ${square}`;
    if (word === 'return') return `Return the bishop to ${square}`;
    return `${word} ${square}`;
  }
  if (tokens.length === 2) return `Self-destruct the pawn on ${tokens[0].square}`;
  return action;
}

/**
 * @param {string} action
 * @param {Token} from
 * @param {Token} to
 * @param {Token[]} extra
 * @param {string} suffix
 * @param {Map<string, string>} index
 * @returns {string}
 */
function candidateLabel(action, from, to, extra, suffix, index) {
  const between = action.slice(from.at + from.square.length, to.at);
  const parts = [];
  if (between === '@') parts.push(`Teleport to ${to.square}`);
  else if (between === '^') parts.push(`Cannon shot at ${to.square}`);
  else if (between === 'x') parts.push(`Attack ${to.square}`);
  else parts.push(`Move to ${to.square}`);
  let cursor = to.at + to.square.length;
  for (const t of extra) {
    const sep = action.slice(cursor, t.at);
    const name = squareLabel(index.get(t.square), t.square);
    if (sep === '@') parts.push(`place the captured piece on ${name}`);
    else if (sep === '>') parts.push(`return to ${name}`);
    else if (sep === 'x') parts.push(`then attack ${name}`);
    else if (sep === '/') parts.push(`pair ${name}`);
    else if (sep === '' && /^pair \S+$/.test(parts[parts.length - 1])) parts[parts.length - 1] += `–${name}`;
    else parts.push(name);
    cursor = t.at + t.square.length;
  }
  if (suffix) parts.push(`promote to ${PROMOTION_NAMES[suffix.toLowerCase()] || suffix}`);
  return parts.join(', ');
}

/// The board actions from `from` to `to` (on board `boardId` when given), most ordinary
/// first: plain actions before teleports, then fewer extra squares, then the promotion
/// lichess would premove (a queen), then byte order. The first is what a premove plays.
/**
 * @param {ParsedActions} parsed
 * @param {string} from
 * @param {string} to
 * @param {string} [boardId]
 * @returns {BoardAction[]}
 */
export function actionsBetween(parsed, from, to, boardId) {
  /** @param {BoardAction} a */
  const rank = (a) => {
    const promotion = a.suffix ? PROMOTION_ORDER.indexOf(a.suffix.toLowerCase()) : -1;
    return [a.teleport ? 1 : 0, a.extra.length, promotion < 0 ? (a.suffix ? 9 : 0) : promotion];
  };
  return parsed.board
    .filter((a) => a.from === from && a.to === to && (!boardId || a.board === boardId))
    .sort((a, b) => {
      const [x, y] = [rank(a), rank(b)];
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
      return a.action < b.action ? -1 : a.action > b.action ? 1 : 0;
    });
}
