"""``kabu-play``: play any registered game against the agents, in the terminal or in a web page.

    kabu-play --game oicho_kabu --seat 1 --opponents expert --option rules='"kansai"' --record game.json
    kabu-play --game kakeya --opponents scripted random scripted
    kabu-play --web [--port 8000]          # a local page (http://127.0.0.1:8000/): games, play, replays
    kabu-play --resume game.json           # continue a game saved when you quit (q)

Opponents: ``random``, the game's agents (``scripted``, ``expert``, ...), ``ppo_<model>`` (a shipped
model) or a model directory; one name for every other seat, or one per other seat in seat order.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")


def _pick_game(ids: list[str]) -> str:
    from kabu_envs import registry

    print("games:")
    for i, g in enumerate(ids, 1):
        print(f"  {i}) {registry.get(g).title} ({g})")
    while True:
        text = input(f"game [1-{len(ids)}]: ").strip()
        if text.isdigit() and 1 <= int(text) <= len(ids):
            return ids[int(text) - 1]
        if text in ids:
            return text
        print(f"not a choice: {text!r}")


def main(argv: list[str] | None = None) -> int:
    from kabu_envs import registry
    from kabu_envs.core.options import parse_assignments

    ids = registry.game_ids()
    ap = argparse.ArgumentParser(
        prog="kabu-play", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--game", choices=ids, help="the game (asked when not given, in the terminal)")
    ap.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    ap.add_argument("--opponents", nargs="+", help="agent names (default: the game's reference agent)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=JSON", help="a rule option")
    ap.add_argument("--seed", type=int, help="the deal's seed (default: fresh; it is recorded)")
    ap.add_argument("--record", metavar="FILE", help="write the game record here (JSON)")
    ap.add_argument("--resume", metavar="FILE", help="continue a game saved in this record")
    ap.add_argument("--web", action="store_true", help="serve the web page instead of the terminal game")
    ap.add_argument("--port", type=int, default=8000, help="web: the port (0 = any free one)")
    ap.add_argument("--host", default="127.0.0.1", help="web: the address to bind (default 127.0.0.1)")
    ap.add_argument("--record-dir", help="web: where finished games' records go (default: none written)")
    args = ap.parse_args(argv)

    if args.web:
        from kabu_envs.play.web import serve

        return serve(args.host, args.port, args.record_dir)

    from kabu_envs.play.records import RecordError, read_record
    from kabu_envs.play.session import Match, seat_list
    from kabu_envs.play.terminal import main_terminal

    try:
        if args.resume:
            match = Match.from_json(read_record(args.resume).to_json())
            if match.seat is None:
                raise ValueError(f"{args.resume} has no human seat to continue")
            record = args.record or args.resume
        else:
            game = args.game or _pick_game(ids)
            spec = registry.get(game)
            opts = parse_assignments(args.option)
            n = len(spec.make_raw_env(**opts).possible_agents)
            opponents = args.opponents or [spec.reference if spec.reference in spec.agent_names else "random"]
            match = Match(game, seat_list(args.seat, opponents, n), opts, args.seed)
            record = args.record
    except (RecordError, ValueError) as exc:
        ap.error(str(exc))
    except EOFError:
        return 1
    return main_terminal(match, record)


if __name__ == "__main__":
    sys.exit(main())
