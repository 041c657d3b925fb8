"""Every file the project reads back, damaged every way a disk, a copy or a hand can damage it:
truncated, garbage, a zip without its members, JSON with a key given twice, ``NaN`` or values
of the wrong type. Each is one clean line (an :class:`~agents.errors.AgentError`), never a
traceback, and the sound file still loads."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import random_mlp

from agents.learned import (
    META_FILE,
    WEIGHTS_FILE,
    CheckpointError,
    PolicySpec,
    load_learned,
    read_policy_meta,
    write_checkpoint,
)
from agents.value_network import VALUE_FILE, read_value
from allfives_env import Rules

RULES = Rules.preset("pagat", 2)
META = PolicySpec(RULES, False).to_json()


def _npz(**arrays: Any) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def _npy() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.zeros(3))
    return buf.getvalue()


def _meta(**rules: Any) -> str:
    return json.dumps({**META, "rules": {**META["rules"], **rules}})


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    path = tmp_path_factory.mktemp("sound") / "good.zip"
    write_checkpoint(path, PolicySpec(RULES, False), random_mlp(RULES))
    with zipfile.ZipFile(path) as z:
        return path, {n: z.read(n) for n in z.namelist()}


Damage = Callable[[bytes, dict[str, bytes]], "bytes | dict[str, bytes | str]"]

CHECKPOINTS: dict[str, tuple[Damage, str]] = {
    "truncated": (lambda whole, m: whole[: len(whole) // 2], "is not an allfives checkpoint"),
    "cut at the end": (lambda whole, m: whole[:-10], "is not an allfives checkpoint"),
    "garbage": (lambda whole, m: b"\x00garbage" * 64, "is not an allfives checkpoint"),
    "empty": (lambda whole, m: b"", "is not an allfives checkpoint"),
    "no metadata": (lambda w, m: {WEIGHTS_FILE: m[WEIGHTS_FILE]}, f"holds no {META_FILE}"),
    "no weights": (lambda w, m: {META_FILE: m[META_FILE]}, f"holds no {WEIGHTS_FILE}"),
    "a key twice": (
        lambda w, m: {**m, META_FILE: json.dumps(META)[:-1] + ', "action_features": true}'},
        "duplicate key 'action_features'",
    ),
    "NaN": (lambda w, m: {**m, META_FILE: _meta(target=float("nan"))}, "NaN is not JSON"),
    "not UTF-8": (lambda w, m: {**m, META_FILE: b"\xff\xfe{"}, "not UTF-8 text"),
    "nested too deep": (lambda w, m: {**m, META_FILE: "[" * 10**5 + "]" * 10**5}, "nested"),
    "a list": (lambda w, m: {**m, META_FILE: "[1, 2]"}, "not a JSON object"),
    "no rules": (lambda w, m: {**m, META_FILE: '{"action_features": false}'}, "no 'rules'"),
    "rules a list": (
        lambda w, m: {**m, META_FILE: '{"rules": [], "action_features": false}'},
        "'rules' must be an object",
    ),
    "empty rules": (
        lambda w, m: {**m, META_FILE: '{"rules": {}, "action_features": false}'},
        "the rules name no 'name'",
    ),
    "unknown rules field": (lambda w, m: {**m, META_FILE: _meta(bogus=1)}, "bogus"),
    "players a string": (lambda w, m: {**m, META_FILE: _meta(num_players="2")}, "num_players"),
    "players a float": (lambda w, m: {**m, META_FILE: _meta(num_players=2.0)}, "num_players"),
    "target a list": (lambda w, m: {**m, META_FILE: _meta(target=[1])}, "target"),
    "features an object": (
        lambda w, m: {**m, META_FILE: json.dumps({**META, "action_features": {}})},
        "action_features",
    ),
    "weights garbage": (lambda w, m: {**m, WEIGHTS_FILE: b"junk"}, "is not an .npz"),
    "weights an .npy": (lambda w, m: {**m, WEIGHTS_FILE: _npy()}, "is not an .npz"),
    "weights truncated": (
        lambda w, m: {**m, WEIGHTS_FILE: m[WEIGHTS_FILE][: len(m[WEIGHTS_FILE]) // 2]},
        f"its {WEIGHTS_FILE} is not an .npz",
    ),
    "weights missing an array": (
        lambda w, m: {**m, WEIGHTS_FILE: _npz(w0=np.zeros((2, 2), np.float32))},
        "damaged",
    ),
}


def _write(path: Path, damaged: bytes | dict[str, bytes | str]) -> Path:
    if isinstance(damaged, bytes):
        path.write_bytes(damaged)
    else:
        with zipfile.ZipFile(path, "w") as z:
            for name, data in damaged.items():
                z.writestr(name, data)
    return path


@pytest.mark.parametrize("how", sorted(CHECKPOINTS))
def test_a_damaged_checkpoint_is_one_line(
    how: str, sound: tuple[Path, dict[str, bytes]], tmp_path: Path
) -> None:
    good, members = sound
    damage, message = CHECKPOINTS[how]
    path = _write(tmp_path / "bad.zip", damage(good.read_bytes(), members))
    with pytest.raises(CheckpointError) as err:
        load_learned(str(path))
    text = str(err.value)
    assert message in text and "\n" not in text, text
    assert "bad.zip" in text  # names the file
    load_learned(str(good))


def test_a_damaged_checkpoint_is_one_line_from_every_command(
    sound: tuple[Path, dict[str, bytes]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from allfives_cli import main

    good, _ = sound
    path = _write(tmp_path / "bad.zip", good.read_bytes()[:100])
    for args in (
        ["eval", str(path), "random", "--matches", "2"],
        ["demo", "--agents", str(path)],
        ["play", "--opponents", str(path), "--no-save"],
    ):
        assert main(args) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.startswith("allfives: error: ") and err.count("\n") == 1, err


VALUES: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "truncated": (lambda v: v[: len(v) // 2], "not a weights file"),
    "garbage": (lambda v: b"junk", "not a weights file"),
    "an .npy": (lambda v: _npy(), "not a weights file"),
    "empty": (lambda v: b"", "not a weights file"),
    "scale a string": (lambda v: _npz(**{**_arrays(v), "scale": np.array("x")}), "scale"),
    "scale two numbers": (lambda v: _npz(**{**_arrays(v), "scale": np.ones(2)}), "scale"),
    "a layer missing": (lambda v: _npz(**{**_arrays(v), "w7": _arrays(v)["w0"]}), "lacks"),
    "ints": (lambda v: _npz(**{**_arrays(v), "w0": _arrays(v)["w0"].astype(int)}), "floats"),
}


def _arrays(data: bytes) -> dict[str, Any]:
    with np.load(io.BytesIO(data)) as z:
        return {k: z[k] for k in z.files}


@pytest.mark.parametrize("how", sorted(VALUES))
def test_a_damaged_value_network_is_one_line(how: str, tmp_path: Path) -> None:
    from tests.agents.test_value_search import random_value, value_checkpoint

    good = value_checkpoint(tmp_path / "v.zip", RULES, random_value(RULES))
    with zipfile.ZipFile(good) as z:
        members = {n: z.read(n) for n in z.namelist()}
    damage, message = VALUES[how]
    path = _write(tmp_path / "bad.zip", {**members, VALUE_FILE: damage(members[VALUE_FILE])})
    with pytest.raises(CheckpointError) as err:
        read_value(path)
    text = str(err.value)
    assert message in text and "holds a broken value network" in text and "\n" not in text
    read_value(good)


def _folder(tmp_path: Path, meta: str | bytes, weights: str) -> Path:
    folder = tmp_path / "policy"
    folder.mkdir(exist_ok=True)
    (folder / META_FILE).write_bytes(meta.encode() if isinstance(meta, str) else meta)
    (folder / weights).write_bytes(b"weights")
    return folder


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        ('{"rules": {}, "action_features": false, "x": 1, "x": 2}', "duplicate key 'x'"),
        ("{", "bad"),
        (b"\xff", "not UTF-8"),
        ("[]", "no 'entry' entry"),
        (json.dumps({**META, "entry": {}, "rules": 3}), "'rules' must be an object"),
    ],
)
def test_a_damaged_policy_folder_is_one_line(tmp_path: Path, meta: str, message: str) -> None:
    """The folders of the BenchMARL and OpenSpiel trainers share their metadata reader."""
    folder = _folder(tmp_path, meta, "w.pt")
    with pytest.raises(CheckpointError) as err:
        read_policy_meta(folder, "w.pt", "entry", "python -m x")
    assert message in str(err.value) and "\n" not in str(err.value), str(err.value)


NFSP_SHAPE = {"algorithm": "nfsp", "game": "g", "num_players": 2, "obs_size": 4,
              "num_actions": 3, "hidden": [8]}  # fmt: skip
BENCHMARL_NET = {"algorithm": "mappo", "group": "players", "n_agents": 2, "obs_size": 4,
                 "num_actions": 3, "out_key": "logits", "num_cells": [8], "activation": "Tanh",
                 "share_params": True}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"obs_size": "4"}, "'obs_size' must be a whole number"),
        ({"obs_size": 4.0}, "'obs_size' must be a whole number"),
        ({"num_players": True}, "'num_players' must be a whole number"),
        ({"hidden": [8, "x"]}, "'hidden' must be a list"),
        ({"hidden": 8}, "'hidden' must be a list"),
        ({"algorithm": "dqn"}, "is not 'nfsp'"),
        ({"extra": 1}, "unknown field(s) extra"),
        ({"game": None}, "'game' must be a string"),
    ],
)
def test_an_nfsp_policy_entry_is_checked_field_by_field(
    change: dict[str, Any], message: str
) -> None:
    pytest.importorskip("open_spiel")
    pytest.importorskip("torch")
    from allfives_openspiel.nfsp_policy import NetworkShape

    NetworkShape.from_json(NFSP_SHAPE)
    with pytest.raises(CheckpointError) as err:
        NetworkShape.from_json({**NFSP_SHAPE, **change})
    assert message in str(err.value) and "'openspiel' entry" in str(err.value), str(err.value)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"n_agents": "2"}, "'n_agents' must be a whole number"),
        ({"num_cells": [8.5]}, "'num_cells' must be a list"),
        ({"share_params": 1}, "'share_params' must be true or false"),
        ({"activation": "Nope"}, "no activation 'Nope'"),
        ({"activation": 3}, "'activation' must be a string"),
        ({"out_key": "q"}, "out_key 'q'"),
    ],
)
def test_a_benchmarl_policy_entry_is_checked_field_by_field(
    change: dict[str, Any], message: str
) -> None:
    pytest.importorskip("torch")
    from allfives_benchmarl.policy_file import NetworkSpec

    NetworkSpec.from_json(BENCHMARL_NET)
    with pytest.raises(CheckpointError) as err:
        NetworkSpec.from_json({**BENCHMARL_NET, **change})
    assert message in str(err.value) and "'benchmarl' entry" in str(err.value), str(err.value)


@pytest.mark.parametrize(
    ("meta", "message"),
    [
        (json.dumps(META)[:-1] + ', "action_features": true}', "duplicate key"),
        ("NaN", "NaN is not JSON"),
        ('{"rules": 1, "action_features": false}', "'rules' must be an object"),
    ],
)
def test_an_rllib_checkpoints_metadata_is_read_strictly(
    tmp_path: Path, meta: str, message: str
) -> None:
    from allfives_rllib.agent import read_spec

    (tmp_path / META_FILE).write_text(json.dumps(META))
    assert read_spec(tmp_path).rules == RULES
    (tmp_path / META_FILE).write_text(meta)
    with pytest.raises(CheckpointError) as err:
        read_spec(tmp_path)
    assert message in str(err.value) and META_FILE in str(err.value)


def test_the_reference_ratings_are_checked_field_by_field() -> None:
    from agents.benchmark.protocol import FULL
    from agents.benchmark.run import read_reference, reference_file
    from agents.eval.match import EvalError

    good = json.loads(reference_file(FULL).read_text())
    read_reference(good, FULL, "ref.json")
    setting = next(iter(good["ratings"]))
    for bad, message in (
        ({**good, "format": "allfives-bench/1"}, "'format'"),
        ({**good, "ratings": {}}, "every setting"),
        ({**good, "ratings": {**good["ratings"], setting: {"random": [25.0, 8.0]}}},
         "every fixed opponent"),
        ({**good, "ratings": {**good["ratings"], setting: {
            **good["ratings"][setting], "random": [25.0, "8"]}}}, "[mu, sigma]"),
        ({**good, "ratings": {**good["ratings"], setting: {
            **good["ratings"][setting], "random": [25.0, 0.0]}}}, "[mu, sigma]"),
        ([], "'format'"),
    ):  # fmt: skip
        with pytest.raises(EvalError) as err:
            read_reference(bad, FULL, "ref.json")
        text = str(err.value)
        assert message in text and "ref.json" in text and "--reference" in text, text
