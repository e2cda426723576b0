"""``kabu-play``: play any registered game against the agents, in the terminal or in a web page.

    kabu-play --game oicho_kabu --seat 1 --opponents expert --option rules='"kansai"' --record game.json
    kabu-play --game kakeya --opponents scripted random scripted
    kabu-play --web [--port 8000]          # a local page (http://127.0.0.1:8000/): games, play, replays
    kabu-play --resume game.json           # continue a game saved when you quit (q)
    kabu-play                              # asks: game, rule options, seat, opponents

Opponents: ``random``, the game's agents (``scripted``, ``expert``, ...), a shipped model by
name or a model directory; one name for every other seat, or one per other seat in seat order.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

os.environ.setdefault("OMP_NUM_THREADS", "1")


def _ask(prompt: str, default: str, parse: Callable[[str], T]) -> T:
    """Ask until ``parse`` accepts the answer (an empty answer is ``default``); EOF raises EOFError."""
    while True:
        text = input(f"{prompt} [{default}]: ").strip() or default
        try:
            return parse(text)
        except ValueError as exc:
            print(f"  {exc}")


def _pick_game(ids: list[str]) -> str:
    from kabu_envs import registry

    print("games:")
    for i, g in enumerate(ids, 1):
        print(f"  {i}) {registry.get(g).title} ({g})")

    def parse(text: str) -> str:
        if text.isascii() and text.isdigit() and 1 <= int(text) <= len(ids):
            return ids[int(text) - 1]
        if text in ids:
            return text
        raise ValueError(f"not a choice: {text!r}; a number from 1 to {len(ids)} or a game id")

    return _ask("game", "1", parse)


def _interactive(args: argparse.Namespace, ids: list[str]) -> Any:
    """Ask for what the command line did not say: game, rule options, seat, opponents."""
    from kabu_envs import registry
    from kabu_envs.core.options import parse_assignments
    from kabu_envs.play.session import Match, seat_list

    game = args.game or _pick_game(ids)
    spec = registry.get(game)

    def options(text: str) -> dict[str, Any]:
        opts = parse_assignments(text.split()) if text != "-" else {}
        spec.config(**opts)
        return opts

    opts = options(" ".join(args.option)) if args.option else _ask(
        "rule options, KEY=JSON separated by spaces (e.g. rules=\"kansai\"; - for the defaults)", "-", options
    )  # fmt: skip
    n = len(spec.make_raw_env(**opts).possible_agents)

    def seat_in_table(text: str) -> int:
        if not (text.isascii() and text.isdigit()) or int(text) >= n:
            raise ValueError(f"not a seat: {text!r}; this table has seats 0..{n - 1}")
        return int(text)

    seat = args.seat if args.seat is not None else _ask(f"your seat, 0..{n - 1}", "0", seat_in_table)
    default = spec.reference if spec.reference in spec.agent_names else "random"
    if args.opponents:
        return Match(game, seat_list(seat, args.opponents, n), opts, args.seed)
    print(f"agents: {', '.join(spec.agent_names)}, or a shipped model (ppo_...)")
    return _ask(
        f"opponents (one name, or {n - 1} separated by spaces)",
        default,
        lambda text: Match(game, seat_list(seat, text.split(), n), opts, args.seed),
    )


def _port(text: str) -> int:
    """A TCP port, 0 (any free one) .. 65535."""
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: 0..65535 (0 = any free one)")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    """The command line; exits 0 when a game is finished, 1 when quit, 130 on Ctrl-C, 2 on bad input."""
    try:
        return _main(argv)
    except KeyboardInterrupt:  # while asking for the game (a game in play saves itself: terminal.run)
        print("\nkabu-play: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str] | None) -> int:
    from kabu_envs import registry
    from kabu_envs.core.options import parse_assignments

    ids = registry.game_ids()
    ap = argparse.ArgumentParser(
        prog="kabu-play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--game", choices=ids, help="the game; without it the options, seat and opponents not given are asked"
    )
    ap.add_argument("--seat", type=int, help="your seat (default 0; asked when --game is not given)")
    ap.add_argument("--opponents", nargs="+", help="agent names (default: the game's reference agent)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=JSON", help="a rule option")
    ap.add_argument("--seed", type=int, help="the deal's seed (default: fresh; it is recorded)")
    ap.add_argument("--record", metavar="FILE", help="write the game record here (JSON)")
    ap.add_argument("--resume", metavar="FILE", help="continue a game saved in this record")
    ap.add_argument("--web", action="store_true", help="serve the web page instead of the terminal game")
    ap.add_argument("--port", type=_port, default=8000, help="web: the port (0 = any free one)")
    ap.add_argument("--host", default="127.0.0.1", help="web: the address to bind (default 127.0.0.1)")
    ap.add_argument("--record-dir", help="web: where finished games' records go (default: none written)")
    ap.add_argument(
        "--policy",
        action="append",
        default=[],
        metavar="PATH",
        help="web: a policy file or model directory the page may pick as an agent (repeatable)",
    )
    args = ap.parse_args(argv)

    if args.web:
        from kabu_envs.play.web import serve

        return serve(args.host, args.port, args.record_dir, tuple(args.policy))

    from kabu_envs.play.records import RecordError, read_record
    from kabu_envs.play.session import Match, seat_list
    from kabu_envs.play.terminal import main_terminal

    try:
        if args.resume:  # checked as kabu-replay checks it (a sealed one must open unedited)
            try:
                match = Match.from_record(read_record(args.resume))
            except RecordError as exc:
                raise RecordError(f"cannot continue {args.resume}: {exc}") from None
            if match.seat is None:
                raise ValueError(f"{args.resume} has no human seat to continue")
            record = args.record or args.resume
        elif args.game is None:
            match, record = _interactive(args, ids), args.record
        else:
            spec = registry.get(args.game)
            opts = parse_assignments(args.option)
            n = len(spec.make_raw_env(**opts).possible_agents)
            opponents = args.opponents or [spec.reference if spec.reference in spec.agent_names else "random"]
            seat = 0 if args.seat is None else args.seat
            match = Match(args.game, seat_list(seat, opponents, n), opts, args.seed)
            record = args.record
    except (RecordError, ValueError) as exc:
        ap.error(str(exc))
    except EOFError:
        return 1
    return main_terminal(match, record)


if __name__ == "__main__":
    sys.exit(main())
