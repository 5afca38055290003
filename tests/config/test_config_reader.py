"""Focused tests of condorx.language.config: errors, getters, overrides, lookups, defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorx.errors import CondorxError
from condorx.language.config import Config, ConfigError, load_config


def test_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "condor_config"
    path.write_text("A = 1\nB = 2\nnot an assignment\n")
    with pytest.raises(ConfigError) as info:
        load_config(path=path, environ={})
    err = info.value
    assert isinstance(err, CondorxError)
    assert (err.file, err.line) == (str(path), 3)
    assert str(err).startswith(f"{path}:3: ")


def test_error_in_included_file_names_that_file(tmp_path: Path) -> None:
    (tmp_path / "bad.conf").write_text("X = 1\nif true\n")
    root = tmp_path / "condor_config"
    root.write_text(f"include : {tmp_path}/bad.conf\n")
    with pytest.raises(ConfigError, match="endif") as info:
        load_config(path=root, environ={})
    assert info.value.file == str(tmp_path / "bad.conf")


def test_if_with_and_is_refused() -> None:
    with pytest.raises(ConfigError, match="complex conditionals") as info:
        Config.from_text("A = true\nB = 1\nif $(A) && $(B)\nC = 1\nendif\n", environ={})
    assert info.value.line == 3


def test_cycle_is_an_error_naming_the_cycle() -> None:
    cfg = Config.from_text("A = x$(B)\nB = $(C)y\nC = <$(A)>\nD = fine\n", environ={})
    assert cfg.get("D") == "fine"
    with pytest.raises(ConfigError, match=r"A -> B -> C -> A"):
        cfg.get("A")


def test_self_reference_and_append() -> None:
    cfg = Config.from_text("A = one\nA = $(A) two\nA += three\nL = x\nL +,= y\n", environ={})
    assert cfg.get("A") == "one two three"
    assert cfg.get("L") == "x,y"
    assert cfg.raw("START") == "True"


def test_getters() -> None:
    cfg = Config.from_text(
        "MINUTES = 5\nT = 60 * $(MINUTES)\nF = 2.5\nB1 = TRUE\nB2 = no\nB3 = 3 > 2\n"
        "L = a, b  c,d\nE =\n",
        environ={},
    )
    assert cfg.get_int("T", 0) == 300
    assert cfg.get_int("MISSING", 7) == 7
    assert cfg.get_float("F", 0.0) == 2.5
    assert cfg.get_bool("B1", False) is True
    assert cfg.get_bool("B2", True) is False
    assert cfg.get_bool("B3", False) is True
    assert cfg.get_list("L") == ["a", "b", "c", "d"]
    assert cfg.get_list("E") == []
    assert cfg.get("E") is None
    assert cfg.get_str("E", "dflt") == "dflt"
    assert cfg.get_int("PERIODIC_EXPR_INTERVAL", 0) == 60


def test_environment_overrides_after_files() -> None:
    env = {"_CONDOR_A": "$(A) env", "_condor_b": "  lower  ", "_CONDOR_IN_IF": "1"}
    cfg = Config.from_text("A = file\nif defined IN_IF\nSEEN = yes\nendif\n", environ=env)
    assert cfg.get("A") == "file env"
    assert cfg.get("B") == "lower  "
    assert cfg.get("SEEN") is None  # if is decided while reading: env values come later


def test_subsystem_and_local_name_lookups(tmp_path: Path) -> None:
    path = tmp_path / "condor_config"
    path.write_text("X = plain\nSCHEDD.X = schedd\nSCHEDD_B.X = local\nY = <$(X)>\n")
    plain = load_config(path=path, environ={})
    schedd = load_config(subsystem="SCHEDD", path=path, environ={})
    local = load_config(subsystem="schedd", local_name="SCHEDD_B", path=path, environ={})
    assert (plain.get("X"), schedd.get("X"), local.get("X")) == ("plain", "schedd", "local")
    assert schedd.get("Y") == "<schedd>"
    assert schedd.get("SUBSYSTEM") == "SCHEDD" and schedd.get("IsSchedd") == "true"
    assert plain.subsystem == "TOOL" and local.local_name == "SCHEDD_B"


def test_builtin_defaults_only(tmp_path: Path) -> None:
    cfg = load_config(environ={"HOME": str(tmp_path)})
    assert cfg.get("LOCAL_DIR") == f"{tmp_path}/.condorx"
    assert cfg.get("LOG") == f"{tmp_path}/.condorx/log"
    assert cfg.get_int("NEGOTIATOR_INTERVAL", 0) == 60
    assert cfg.get("START") == "True"
    assert cfg.names() == []


def test_file_config_keeps_htcondor_defaults(tmp_path: Path) -> None:
    path = tmp_path / "condor_config"
    path.write_text("A = 1\n")
    cfg = load_config(path=path, environ={"HOME": str(tmp_path)})
    assert cfg.get("LOCAL_DIR") is None
    assert cfg.get("LOG") == "/log"
    assert cfg.names() == ["A"]


def test_missing_named_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(path=tmp_path / "nope", environ={})
