"""Each game page opens with an environment card generated from the code (``kabu_envs.env_card``)."""

from __future__ import annotations

import pytest

from kabu_envs import env_card, registry


def test_the_two_games_have_a_page_with_a_card():
    ids = {spec.id for spec in env_card.documented_games()}
    assert {"kakeya", "oicho_kabu"} <= ids


def test_every_card_on_the_pages_is_current():
    stale = env_card.stale_pages()
    assert not stale, f"run `python -m kabu_envs.env_card --update`: stale cards in {stale}"


@pytest.mark.parametrize("game", ["kakeya", "oicho_kabu"])
def test_the_card_says_what_the_env_is(game: str):
    spec = registry.get(game)
    card = env_card.env_card(spec)
    env = spec.make_raw_env()
    agent = env.possible_agents[0]
    assert f"`Discrete`: {env.action_space(agent).n} actions" in card
    assert str(env.observation_space(agent)["observation"].shape[0]) in card
    assert spec.pettingzoo_id in card and all(gym_id in card for gym_id in spec.gym_ids)
    for name in (*spec.versions, *spec.agent_names, *spec.role_names):
        assert f"`{name}`" in card
    assert spec.rewards in card and spec.episode in card


def test_a_changed_record_makes_the_card_stale(monkeypatch: pytest.MonkeyPatch):
    """The check can fail: a card rendered from an edited record no longer matches the page."""
    import dataclasses

    spec = registry.get("kakeya")
    edited = dataclasses.replace(spec, episode="a different sentence")
    monkeypatch.setattr(env_card, "documented_games", lambda: [edited])
    assert env_card.stale_pages() == [str(env_card.page(spec))]
