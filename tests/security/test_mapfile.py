"""The unified map file (CERTIFICATE_MAPFILE) read and applied as HTCondor's MapFile
does. The slash and escape cases are those of HTCondor's own regression test
(src/condor_tests/test_pcre.py, CERTIFICATE_MAPFILE_ASSUME_HASH_KEYS true)."""

from __future__ import annotations

import pytest

from condorx.transport.cedar import mapfile

PCRE_CASES = [  # (map line, allowed principal, denied principal)
    (r"CLAIMTOBE /(.*)@domain/ \1@mapped", "allowed@domain", "denied@elsewhere"),
    (r"CLAIMTOBE /^\\\/(.*)$/ \1@mapped", "/allowed", "denied"),
    (r"CLAIMTOBE /^[\/](.*)$/ \1@mapped", "/allowed", "denied"),
    (r"CLAIMTOBE /^x[\s](.*)$/ \1@mapped", "x allowed", "xdenied"),
    (r"CLAIMTOBE /^x[\\s](.*)$/ \1@mapped", "x allowed", "xdenied"),
]


@pytest.mark.parametrize(("line", "allowed", "denied"), PCRE_CASES)
def test_htcondors_regex_cases_with_hash_keys(line, allowed, denied):
    m = mapfile.parse(line + "\n", assume_hash=True)
    assert m.map("CLAIMTOBE", allowed) == "allowed@mapped"
    assert m.map("CLAIMTOBE", denied) is None
    assert m.map("FS", allowed) is None  # a line serves its own method only


def test_by_default_every_principal_is_a_regex_searched_for():
    m = mapfile.parse(
        "# the manual's examples\n"
        'SSL "/C=US/O=Example/CN=Alice Smith" alice\n'
        "SCITOKENS ^https://phys.uz.edu, physics\n"
        "SSL (.*) ssl@unmapped\n"
    )
    assert m.map("SSL", "/C=US/O=Example/CN=Alice Smith") == "alice"
    assert m.map("SSL", "/C=US/O=Example/CN=Bob") == "ssl@unmapped"  # first match wins
    assert m.map("SCITOKENS", "https://phys.uz.edu,1234") == "physics"
    assert m.map("SCITOKENS", "https://other.edu,1234") is None


def test_hash_keys_are_literals_unless_slashed():
    m = mapfile.parse('SSL "/CN=a.b" literal\nSSL /^\\/CN=a.c$/i regex\n', assume_hash=True)
    assert m.map("SSL", "/CN=a.b") == "literal"
    assert m.map("SSL", "/CN=aXb") is None  # a literal's dot is a dot
    assert m.map("SSL", "/cn=A.C") == "regex"


def test_groups_and_backslashes_in_the_canonical_name():
    m = mapfile.parse(r"FS (\w+)-(\w+) \2.\1@\0\9\x" + "\n")
    assert m.map("FS", "ab-cd") == r"cd.ab@ab-cd\9\x"


def test_includes_files_and_directories(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "10-a").write_text("FS ^a$ from-dir\n@include ../other\n")
    (tmp_path / "other").write_text("FS ^b$ from-file\n")
    main = tmp_path / "map"
    main.write_text("@include d\n@include other\n")
    m = mapfile.load(str(main))
    assert m.map("FS", "a") == "from-dir"
    assert m.map("FS", "b") == "from-file"  # the nested @include was refused, not this


def test_bad_lines_are_skipped_with_the_rest_kept(caplog):
    m = mapfile.parse("FS ^a$\nFS ([ broken\nFS ^c$ c\n", where="/etc/map")
    assert m.map("FS", "c") == "c"
    assert "/etc/map line 1" in caplog.text and "/etc/map line 2" in caplog.text
