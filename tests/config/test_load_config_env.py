"""CONDOR_CONFIG=ONLY_ENV means no configuration file: only the built-in defaults and the
_CONDOR_ variables, as HTCondor reads it."""

from __future__ import annotations

from condorx.language.config import load_config


def test_only_env_reads_no_file_and_honours_condor_variables():
    cfg = load_config(environ={"CONDOR_CONFIG": "ONLY_ENV", "_CONDOR_CRON_TIME_ZONE": "UTC"})
    assert cfg.get("CRON_TIME_ZONE") == "UTC"
    assert cfg.files == []
    assert cfg.get_int("MATCH_TIMEOUT", 0) == 120  # the built-in defaults still apply
