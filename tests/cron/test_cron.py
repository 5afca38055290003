"""The CronTab schedule from Python: checking fields, next run times, the preview CLI,
and condor_submit refusing a bad schedule with its line."""

from __future__ import annotations

import calendar
from pathlib import Path

import pytest
from click.testing import CliRunner

from condorx.cli.cron import cron
from condorx.language.config import Config
from condorx.language.cron import CronError, CronSpec, next_run_each, next_runs, parse
from condorx.language.submit.build import Facts, build
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.parse import parse as parse_submit


def utc(text: str) -> int:
    return calendar.timegm(__import__("time").strptime(text, "%Y-%m-%d %H:%M"))


def test_every_other_hour_at_23_past():
    spec = CronSpec("23", "0-23/2")
    assert next_runs(spec, utc("2024-05-01 09:30"), 3, "UTC") == [
        utc("2024-05-01 10:23"),
        utc("2024-05-01 12:23"),
        utc("2024-05-01 14:23"),
    ]


def test_day_of_month_or_day_of_week_and_sunday_as_7():
    # The 13th or any Friday; and 7 means Sunday as 0 does.
    assert next_runs(CronSpec("0", "0", "13", "*", "5"), utc("2024-09-10 00:00"), 2, "UTC") == [
        utc("2024-09-13 00:00"),
        utc("2024-09-20 00:00"),
    ]
    assert next_runs(CronSpec("0", "12", "*", "*", "7"), utc("2024-09-10 00:00"), 1, "UTC") == [
        utc("2024-09-15 12:00"),
    ]


def test_a_skipped_local_time_is_not_invented():
    # 02:30 does not exist in Chicago on 2024-03-10; the next 02:30 is the day after.
    runs = next_runs(CronSpec("30", "2"), utc("2024-03-09 12:00"), 2, "America/Chicago")
    assert runs == [utc("2024-03-11 07:30")] + [utc("2024-03-12 07:30")]


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        (CronSpec("0", "25"), "CronHour"),
        (CronSpec("5-2"), "CronMinute"),
        (CronSpec("*/0"), "CronMinute"),
        (CronSpec("*", "*", "*", "abc"), "CronMonth"),
    ],
)
def test_bad_fields_name_themselves(spec, field):
    with pytest.raises(CronError, match=field) as info:
        parse(spec)
    assert info.value.attribute == field


def test_never_and_many():
    assert next_runs(CronSpec("0", "0", "30", "2"), 0, 1, "UTC") == []
    assert next_run_each(
        [CronSpec("0"), CronSpec("0", "0", "31", "2")], utc("2024-01-01 00:30"), "UTC"
    ) == [utc("2024-01-01 01:00"), None]


def test_preview_prints_the_next_run_times():
    out = CliRunner().invoke(
        cron,
        [
            "preview",
            "*/20 * * * *",
            "-n",
            "3",
            "--tz",
            "UTC",
            "--after",
            str(utc("2024-05-01 09:05")),
        ],
    )
    assert out.exit_code == 0, out.output
    assert [ln.split()[2] for ln in out.output.splitlines()] == ["09:20", "09:40", "10:00"]
    bad = CliRunner().invoke(cron, ["preview", "0 25 * * *"])
    assert bad.exit_code != 0 and "CronHour: 25 is out of range 0-23" in bad.output
    negative = CliRunner().invoke(cron, ["preview", "* * * * *", "-n", "-1"])
    assert negative.exit_code == 2 and "-1 is not in the range" in negative.output


def test_the_python_face_takes_crontab_text_too():
    assert parse("*/5 9-17 * * 1-5") == CronSpec("*/5", "9-17", "*", "*", "1-5")
    after = utc("2024-05-01 09:05")
    assert next_runs("0 12 * * *", after, 2, "UTC") == [
        utc("2024-05-01 12:00"),
        utc("2024-05-02 12:00"),
    ]
    with pytest.raises(CronError, match="CronMinute"):
        parse("61 * * * *")
    with pytest.raises(ValueError, match="cannot be negative"):
        next_runs("* * * * *", after, -1)


def test_condor_submit_refuses_a_bad_schedule_with_its_line(tmp_path: Path):
    cfg = Config.from_text("")
    text = "executable = /bin/true\ncron_minute = 0\ncron_hour = 25\nqueue\n"
    with pytest.raises(SubmitError, match=r"job.sub, line 3: cron_hour: CronHour: 25 is out"):
        build(parse_submit(text, "job.sub"), 1, Facts.from_config(cfg, str(tmp_path)), cfg)
