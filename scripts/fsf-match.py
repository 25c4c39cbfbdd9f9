#!/usr/bin/env python3
"""A second referee: `oddboard uci` against Fairy-Stockfish on Suicide, judged by python-chess.

Neither engine's rules decide anything here: python-chess's `chess.variant.SuicideBoard`
says which moves are legal (an illegal or missing move loses that engine the game, and is
reported) and how each game ends (FICS rules). Both engines are driven alike, over UCI:
`setoption name UCI_Variant value suicide`, then per move `position startpos moves ...` and
`go movetime N`. Each random opening (random legal plies from the start, drawn from --seed)
is played twice, once with each colour.

Run from the repository root:

    apt-get install -y fairy-stockfish          # /usr/games/fairy-stockfish (Debian's 11.1)
    python3 -m venv target/fsf-venv && target/fsf-venv/bin/pip install chess==1.11.2
    cargo build --release -p oddboard --bin oddboard
    target/fsf-venv/bin/python scripts/fsf-match.py --games 40 --seed 1 --movetime-ms 100

Prints a line per game, then oddboard's +W =D -L, score, Elo difference with its 95% error
(the formula of `oddboard engine match`, `crates/engine/src/versus.rs`) and the seed;
`--pgn FILE` also writes the games.

How a game ends, as python-chess judges it: `SuicideBoard.outcome()` (a side without men
wins; a side without a move wins with fewer men, draws with as many, loses with more; dead
positions such as bishops that can never meet are drawn), and, as FICS grants them on claim,
a threefold repetition and 100 plies without a capture or pawn move draw when they occur.
python-chess's SuicideBoard would castle from the standard start; FICS suicide has no
castling, nor have Fairy-Stockfish and oddboard, so the games start from the standard
position without castling rights. Games still going after --max-plies are drawn.
"""

import argparse
import datetime
import math
import queue
import random
import subprocess
import sys
import threading

import chess
import chess.pgn
import chess.variant

START_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
VARIANT = "suicide"


class EngineError(Exception):
    """The engine stopped answering or exited."""


class Engine:
    """A UCI engine in a child process; its output is read on a thread into a queue."""

    def __init__(self, command, name_hint):
        self.command = command
        self.name = name_hint
        self.process = None
        self.lines = None

    def start(self):
        self.process = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.process, self.lines), daemon=True).start()
        self.send("uci")
        for line in self.until("uciok", 30):
            if line.startswith("id name "):
                self.name = line[len("id name "):].strip()
        self.send(f"setoption name UCI_Variant value {VARIANT}")
        self.ready()

    @staticmethod
    def _read(process, lines):
        for line in process.stdout:
            lines.put(line.strip())
        lines.put(None)

    def send(self, line):
        try:
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineError(f"{self.name} cannot be written to: {e}") from e

    def until(self, prefix, timeout):
        """The lines up to the first that starts with prefix, that one last."""
        seen = []
        while True:
            try:
                line = self.lines.get(timeout=timeout)
            except queue.Empty:
                raise EngineError(f"{self.name}: no {prefix!r} within {timeout:.0f} s") from None
            if line is None:
                raise EngineError(f"{self.name} exited before {prefix!r}")
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def ready(self):
        self.send("isready")
        self.until("readyok", 30)

    def new_game(self):
        if self.process is None or self.process.poll() is not None:
            self.start()
        self.send("ucinewgame")
        self.ready()

    def best(self, moves, movetime_ms):
        """The engine's answer to `position startpos moves ...` and `go movetime N`."""
        position = "position startpos" + (" moves " + " ".join(moves) if moves else "")
        self.send(position)
        self.send(f"go movetime {movetime_ms}")
        lines = self.until("bestmove", max(10.0, movetime_ms / 1000 * 20))
        words = lines[-1].split()
        return words[1] if len(words) > 1 else "(none)"

    def quit(self):
        if self.process is None:
            return
        try:
            self.send("quit")
            self.process.wait(timeout=5)
        except (EngineError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        self.process = None


def new_board():
    return chess.variant.SuicideBoard(START_FEN)


def random_opening(rng, plies):
    """Random legal plies from the start that leave the game going."""
    board = new_board()
    moves = []
    for _ in range(plies):
        legal = sorted(board.legal_moves, key=lambda m: m.uci())
        if not legal:
            break
        move = rng.choice(legal)
        board.push(move)
        if ended(board):
            board.pop()
            break
        moves.append(move.uci())
    return moves


def ended(board):
    """(winner or None, reason) when python-chess says the game is over, else None."""
    outcome = board.outcome(claim_draw=False)
    if outcome is not None:
        return outcome.winner, describe(board, outcome)
    if board.is_repetition(3):
        return None, "threefold repetition"
    if board.is_fifty_moves():
        return None, "fifty moves"
    return None


def describe(board, outcome):
    """Why python-chess ended the game, in words."""
    side = chess.COLOR_NAMES[board.turn]
    ours, theirs = (chess.popcount(board.occupied_co[c]) for c in (board.turn, not board.turn))
    variant = (chess.Termination.VARIANT_WIN, chess.Termination.VARIANT_LOSS,
               chess.Termination.VARIANT_DRAW)
    if outcome.termination in variant and ours == 0:
        return f"{side} has no men left"
    if outcome.termination in variant:
        men = "man" if ours == 1 else "men"
        return f"{side} to move has no move, with {ours} {men} against {theirs}"
    return outcome.termination.name.lower().replace("_", " ")


def play_game(engines, opening, args):
    """One game; engines maps chess.WHITE/BLACK to an Engine. Returns (board, winner, reason,
    illegal), illegal naming the colour that played an illegal move, if one did."""
    board = new_board()
    for uci in opening:
        board.push_uci(uci)
    for engine in engines.values():
        engine.new_game()
    while True:
        verdict = ended(board)
        if verdict is not None:
            return board, verdict[0], verdict[1], None
        if board.ply() >= args.max_plies:
            return board, None, f"adjudicated a draw after {args.max_plies} plies", None
        mover = board.turn
        engine = engines[mover]
        moves = [m.uci() for m in board.move_stack]
        try:
            answer = engine.best(moves, args.movetime_ms)
        except EngineError as e:
            engine.quit()
            return board, not mover, f"{e}", mover
        try:
            move = chess.Move.from_uci(answer)
        except ValueError:
            move = None
        if move is None or move not in board.legal_moves:
            return board, not mover, f"{engine.name} played {answer}, illegal", mover
        board.push(move)


def elo(wins, draws, losses):
    """The Elo difference the score implies and its 95% error, as `oddboard engine match`
    computes them; None when every game went one way."""
    n = wins + draws + losses
    if n == 0:
        return None
    score = (wins + 0.5 * draws) / n
    if score <= 0.0 or score >= 1.0:
        return None
    variance = sum(count * (points - score) ** 2
                   for points, count in ((1.0, wins), (0.5, draws), (0.0, losses))) / n
    margin = 1.96 * math.sqrt(variance / n)

    def logistic(s):
        s = min(max(s, 1e-6), 1.0 - 1e-6)
        return -400.0 * math.log10(1.0 / s - 1.0)

    return logistic(score) + 0.0, (logistic(score + margin) - logistic(score - margin)) / 2.0


def pgn_game(board, opening, white, black, result, reason, index, args):
    game = chess.pgn.Game.from_board(board)
    game.headers["Event"] = f"oddboard vs Fairy-Stockfish, {args.movetime_ms} ms a move"
    game.headers["Site"] = "scripts/fsf-match.py"
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    game.headers["Round"] = str(index + 1)
    game.headers["White"] = white
    game.headers["Black"] = black
    game.headers["Result"] = result
    game.headers["Termination"] = reason
    game.headers["Opening"] = " ".join(opening) or "start"
    game.headers["Seed"] = str(args.seed)
    return game


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=40,
                        help="games; each opening is played once with each colour")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random openings")
    parser.add_argument("--movetime-ms", type=int, default=100, help="each side, each move")
    parser.add_argument("--opening-plies", type=int, default=2,
                        help="random legal plies that open each pair of games")
    parser.add_argument("--oddboard", default="target/release/oddboard",
                        help="the oddboard binary (run as `oddboard uci`)")
    parser.add_argument("--fsf", default="/usr/games/fairy-stockfish",
                        help="the Fairy-Stockfish binary")
    parser.add_argument("--max-plies", type=int, default=400,
                        help="a game still going after this many plies is drawn")
    parser.add_argument("--pgn", metavar="FILE", help="also write the games here")
    args = parser.parse_args()
    if args.games < 1 or args.movetime_ms < 1 or args.opening_plies < 0 or args.max_plies < 1:
        parser.error("--games, --movetime-ms and --max-plies must be positive, "
                     "--opening-plies at least 0")

    ours = Engine([args.oddboard, "uci"], "oddboard")
    theirs = Engine([args.fsf], "Fairy-Stockfish")
    try:
        ours.start()
        theirs.start()
    except (OSError, EngineError) as e:
        sys.exit(f"cannot start the engines: {e}")
    rng = random.Random(args.seed)
    wins = draws = losses = 0
    illegal = {"ours": 0, "theirs": 0}
    pgn = open(args.pgn, "w", encoding="utf-8") if args.pgn else None
    opening = []
    try:
        for index in range(args.games):
            if index % 2 == 0:
                opening = random_opening(rng, args.opening_plies)
            our_colour = chess.WHITE if index % 2 == 0 else chess.BLACK
            engines = {our_colour: ours, not our_colour: theirs}
            board, winner, reason, cheat = play_game(engines, opening, args)
            if winner is None:
                draws += 1
                verdict, result = "draw", "1/2-1/2"
            else:
                result = "1-0" if winner == chess.WHITE else "0-1"
                if winner == our_colour:
                    wins += 1
                    verdict = "win"
                else:
                    losses += 1
                    verdict = "loss"
            if cheat is not None:
                illegal["ours" if cheat == our_colour else "theirs"] += 1
            colour = "white" if our_colour == chess.WHITE else "black"
            print(f"game {index + 1} as {colour} (opening {' '.join(opening) or '-'}): "
                  f"{verdict} in {board.ply()} plies ({reason})", flush=True)
            if pgn is not None:
                names = {our_colour: ours.name, not our_colour: theirs.name}
                game = pgn_game(board, opening, names[chess.WHITE], names[chess.BLACK],
                                result, reason, index, args)
                print(game, file=pgn, end="\n\n", flush=True)
    finally:
        ours.quit()
        theirs.quit()
        if pgn is not None:
            pgn.close()
    games = wins + draws + losses
    score = (wins + 0.5 * draws) / games
    difference = elo(wins, draws, losses)
    if difference is None:
        rating = "Elo beyond measure (every game went one way)"
    else:
        rating = f"Elo {difference[0]:+.0f} ± {difference[1]:.0f}"
    print(f"oddboard vs {theirs.name} (python-chess {chess.__version__} SuicideBoard referee, "
          f"{args.movetime_ms} ms a move): +{wins} ={draws} -{losses} ({score * 100:.1f}%), "
          f"{rating}, seed {args.seed}; games lost to an illegal or missing move: "
          f"oddboard {illegal['ours']}, opponent {illegal['theirs']}")


if __name__ == "__main__":
    main()
