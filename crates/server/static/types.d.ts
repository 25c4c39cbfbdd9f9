// The shapes of what the server sends that the scripts read, for `tsc --checkJs` only (no
// script loads this file; the modules name these types in JSDoc as
// `import('./types.js').Snapshot`). Written from the Rust types that serialise them:
// crates/rules/src/snapshot.rs (the rules snapshot), crates/play/src/wire/game/ (the game
// socket), and the JSON answers of crates/server/src/web/api/. Fields the scripts never read
// are left out.

export type Color = 'white' | 'black';

/** A square on one of a snapshot's boards. */
export interface SquareRef {
  board: string;
  square: string;
}

export interface Zone {
  kind: string;
  color: Color | null;
  squares: string[];
}

/** One board of a variant: its size, labels, holes and zones. */
export interface BoardSpec {
  id: string;
  files: number;
  ranks: number;
  file_labels: string[];
  rank_labels: string[];
  holes: string[];
  zones: Zone[];
  checkered: boolean;
}

export interface PieceStats {
  life: number;
  max_life: number;
  armor: number;
  ears: number;
  weapon: string;
}

export interface PlacedPiece {
  board: string;
  square: string;
  color: Color;
  role: string;
  stats?: PieceStats | null;
  marks?: string[];
}

export interface Roll {
  purpose: string;
  dice: string;
  value: number;
}

export interface LastAction {
  machine: string;
  human: string;
  squares: SquareRef[];
  rolls?: Roll[];
  effects?: string[];
}

export interface Outcome {
  winner: Color | null;
  reason: string;
}

/** The rules snapshot: everything the board draws and plays from. */
export interface Snapshot {
  variant: string;
  position: string;
  boards: BoardSpec[];
  pieces: PlacedPiece[];
  turn: Color;
  ply: number;
  last_action: LastAction | null;
  check: SquareRef[];
  legal_actions: string[];
  outcome: Outcome | null;
}

/** An action event's changes to the snapshot before it. */
export interface SnapshotUpdate extends Partial<Omit<Snapshot, 'pieces' | 'boards'>> {
  removed: SquareRef[];
  placed: PlacedPiece[];
}

export interface TimeControl {
  initial_ms: number;
  increment_ms: number;
}

export interface ClockView {
  white_ms: number;
  black_ms: number;
  running: Color | null;
}

export interface MoveView {
  ply: number;
  machine: string;
  human: string;
}

export interface ChatLine {
  room?: string;
  from: string;
  text: string;
  at?: string;
}

export type GameStatus = 'waiting' | 'active' | 'finished' | 'aborted';

/** The game of a snapshot message, kept up to date by the game page from the events. */
export interface GameView {
  id: string;
  variant: string;
  status: GameStatus;
  white: string | null;
  black: string | null;
  creator: string;
  /** The creator's choice of colour; an open challenge's acceptor gets the other. */
  color_choice: 'random' | 'white' | 'black';
  time_control: TimeControl | null;
  rated: boolean;
  clock: ClockView | null;
  moves: MoveView[];
  rules: Snapshot;
  draw_offer: Color | null;
  rematch_offer: Color | null;
  takeback_offer: Color | null;
  rematch_game: string | null;
  outcome: Outcome | null;
  you: Color | null;
  spectators: number;
  dice_commitment?: string | null;
  dice_seed?: string | null;
  absent?: Color[];
  claim_after_ms?: Partial<Record<Color, number>>;
  chat?: ChatLine[];
}

/** The game socket's events (`{"t":"event","v",…}`), by `kind`. */
export type GameEvent =
  | { kind: 'started'; white: string; black: string; rules: Snapshot }
  | { kind: 'action'; ply: number; machine: string; human: string; by: Color; forced?: boolean; clock: ClockView | null; update: SnapshotUpdate }
  | { kind: 'draw_offered' | 'draw_declined' | 'rematch_offered' | 'rematch_declined' | 'takeback_offered' | 'takeback_declined'; by: Color }
  | { kind: 'rematch'; game_id: string }
  | { kind: 'takeback'; by: Color; plies: number; rules: Snapshot; clock: ClockView | null }
  | { kind: 'more_time'; by: Color; to: Color; ms: number; clock: ClockView | null }
  | { kind: 'player_gone'; color: Color; claim_after_ms: number }
  | { kind: 'player_back'; color: Color }
  | { kind: 'ended'; outcome: Outcome; clock: ClockView | null; dice_seed: string | null };

/** What the game sockets send (`/ws/game/{id}`, and inside `/ws/games` with a `gid`). */
export type GameServerMsg = { gid?: string } & (
  | { t: 'snapshot'; v: number; game: GameView }
  | ({ t: 'event'; v: number } & GameEvent)
  | { t: 'batch'; messages: GameServerMsg[] }
  | ({ t: 'chat' } & ChatLine)
  | { t: 'spectators'; n: number }
  | { t: 'error'; code?: string; message: string }
  | { t: 'pong' | 'unwatched' });

/** A message to a game socket: `{ t: 'act', ply, action }`, `{ t: 'resign' }`… */
export interface ClientMsg {
  t: string;
  [field: string]: unknown;
}

/** A seek on the lobby (`GET /api/seeks`, the lobby socket). */
export interface Seek {
  id: number;
  user: string;
  rating: number | null;
  provisional?: boolean;
  variant: string;
  time: number;
  inc: number;
  rated: boolean;
  color: Color | null;
  manual: boolean;
  formula: boolean;
}

/** A challenge between two users on the lobby. */
export interface Challenge {
  id: number;
  from: string;
  to: string;
  variant: string;
  time: number;
  inc: number;
  rated: boolean;
  color: Color | null;
}

/** A game as `GET /api/games` and a player's games list it. */
export interface GameSummary {
  game_id: string;
  variant: string;
  status: GameStatus;
  white_name: string | null;
  black_name: string | null;
  clock: TimeControl | null;
  rated: boolean;
  outcome: Outcome | null;
  action_count: number;
  created_at: string;
}

/** One entry of a rating history, oldest first. */
export interface RatingEntry {
  variant: string;
  rating: number;
  game_id: string;
  created_at: string;
}
