"""The Config object: a read configuration and its lookups, as a daemon or tool sees it."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from condorx.language.config import defaults
from condorx.language.config.errors import ConfigError
from condorx.language.config.expand import Expander
from condorx.language.config.reader import Reader
from condorx.language.config.table import Entry, MacroTable

DEFAULT_SUBSYSTEM = "TOOL"
_TRUE_WORDS = frozenset({"true", "yes", "t", "1"})
_FALSE_WORDS = frozenset({"false", "no", "f", "0"})
_LIST_SPLIT = re.compile(r"[\s,]+")
_MAX_LOCAL_ROUNDS = 10

# With no configuration file at all, a personal pool lives under ~/.condorx: LOCAL_DIR and
# the directories HTCondor derives from RELEASE_DIR/ETC (its package layout, absent here),
# so that the pool key and the rest land somewhere this user can write.
PERSONAL = {
    "LOCAL_DIR": "$ENV(HOME)/.condorx",
    "ETC": "$(LOCAL_DIR)/etc",
    "SEC_TOKEN_DIRECTORY": "$(LOCAL_DIR)/tokens.d",
}


class Config:
    """A configuration as read for one subsystem (and optional local name).

    Lookups follow HTCondor: ``LOCALNAME.NAME``, then ``SUBSYSTEM.NAME``, then ``NAME``,
    then the built-in default. Values are expanded when read.
    """

    def __init__(
        self,
        *,
        subsystem: str | None = None,
        local_name: str | None = None,
        environ: Mapping[str, str] | None = None,
        config_root: str | None = None,
        personal_defaults: bool = False,
    ) -> None:
        self.subsystem = (subsystem or DEFAULT_SUBSYSTEM).upper()
        self.local_name = local_name.upper() if local_name else None
        self.environ: Mapping[str, str] = os.environ if environ is None else environ
        self.config_root = config_root
        self.root_file: str | None = None
        self._personal = personal_defaults
        self._table = MacroTable()
        self._expander = Expander(self._lookup_raw, self.environ)
        self._reader = Reader(
            self._table, self._expander, self._previous, self._is_defined, self._self_names
        )

    # ---- construction ----------------------------------------------------------------

    @classmethod
    def from_text(
        cls,
        text: str,
        *,
        subsystem: str | None = None,
        base_dir: str | os.PathLike[str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Config:
        """A configuration from text (for tests): env overrides apply, local files do not."""
        cfg = cls(
            subsystem=subsystem,
            environ=environ,
            config_root=os.fspath(base_dir) if base_dir is not None else None,
        )
        cfg._reader.read_text(text, "condor_config")
        cfg._apply_environment()
        return cfg

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        subsystem: str | None = None,
        local_name: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Config:
        path = os.path.abspath(os.fspath(path))
        cfg = cls(
            subsystem=subsystem,
            local_name=local_name,
            environ=environ,
            config_root=os.path.dirname(path),
        )
        cfg.root_file = path
        cfg._reader.read_file(path)
        cfg._read_local_config()
        cfg._apply_environment()
        return cfg

    @classmethod
    def builtin(
        cls,
        *,
        subsystem: str | None = None,
        local_name: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Config:
        """No configuration file at all: built-in defaults, with a personal LOCAL_DIR."""
        cfg = cls(
            subsystem=subsystem, local_name=local_name, environ=environ, personal_defaults=True
        )
        cfg._apply_environment()
        return cfg

    def _read_local_config(self) -> None:
        """LOCAL_CONFIG_DIR's files, then LOCAL_CONFIG_FILE's; a local file may name
        further local files (a changed LOCAL_CONFIG_FILE is read in turn)."""
        self._read_local_dirs()
        done: str | None = None
        for _ in range(_MAX_LOCAL_ROUNDS):
            current = self.get("LOCAL_CONFIG_FILE")
            if current is None or current == done:
                return
            done = current
            for path in _LIST_SPLIT.split(current.strip()):
                if path:
                    self._read_local_file(path)
        raise ConfigError("LOCAL_CONFIG_FILE keeps naming new files", self.root_file)

    def _read_local_file(self, path: str) -> None:
        if os.path.isfile(path):
            self._reader.read_file(path)
            return
        required = self.get("REQUIRE_LOCAL_CONFIG_FILE") or "true"
        if required.lower() not in _TRUE_WORDS | _FALSE_WORDS:
            raise ConfigError(
                f"REQUIRE_LOCAL_CONFIG_FILE is not a valid boolean ({required!r})", self.root_file
            )
        if required.lower() in _TRUE_WORDS:
            raise ConfigError(
                f"can't read config source {path} (named by LOCAL_CONFIG_FILE)", self.root_file
            )

    def _read_local_dirs(self) -> None:
        dirs = self.get("LOCAL_CONFIG_DIR")
        if not dirs:
            return
        exclude = re.compile(self.get("LOCAL_CONFIG_DIR_EXCLUDE_REGEXP") or r"^$")
        for directory in _LIST_SPLIT.split(dirs.strip()):
            if not os.path.isdir(directory):
                continue
            for name in sorted(os.listdir(directory)):
                path = os.path.join(directory, name)
                if os.path.isfile(path) and not exclude.search(name):
                    self._reader.read_file(path)

    def _apply_environment(self) -> None:
        """``_CONDOR_NAME`` variables replace the files' values (after all files)."""
        for key, value in self.environ.items():
            if key[:8].upper() != "_CONDOR_":
                continue
            name = key[8:].strip()
            if name:
                self._reader.assign(name, value.lstrip(), "environment", None)

    def read_more(self, path: str | os.PathLike[str]) -> None:
        """One more file over this configuration, read after the rest (as DAGMan reads
        its DAGMAN_CONFIG_FILE); ``_CONDOR_`` variables still win. ConfigError when the
        file cannot be read or is refused."""
        name = os.fspath(path)
        if not os.path.isfile(name):
            raise ConfigError(f"can't read config source {name}", self.root_file)
        self._reader.read_file(name)
        self._apply_environment()

    # ---- lookups -----------------------------------------------------------------------

    def _prefixes(self) -> list[str]:
        prefixes = [self.local_name] if self.local_name else []
        return [*prefixes, self.subsystem]

    def _entry(self, name: str) -> Entry | None:
        for prefix in self._prefixes():
            entry = self._table.get(f"{prefix}.{name}")
            if entry is not None:
                return entry
        return self._table.get(name)

    def _builtin(self, name: str) -> str | None:
        if self._personal and name.upper() in PERSONAL:
            return PERSONAL[name.upper()]
        return defaults.builtin(name, self.subsystem, self.local_name, self.config_root)

    def _lookup_raw(self, name: str) -> str | None:
        entry = self._entry(name)
        return entry.raw if entry is not None else self._builtin(name)

    def _previous(self, name: str) -> str:
        """The value so far of a name being defined (for self references and +=)."""
        prefix, dot, base = name.rpartition(".")
        if dot and prefix.upper() in self._prefixes():
            raw = self._lookup_raw(base)
        else:
            entry = self._table.get(name)
            raw = entry.raw if entry is not None else self._builtin(name)
        return raw or ""

    def _self_names(self, name: str) -> frozenset[str]:
        """Spellings that refer to the name being defined: ``SUB.X = $(X)`` refers to
        itself only when read as SUB."""
        prefix, dot, base = name.rpartition(".")
        if dot and prefix.upper() in self._prefixes():
            return frozenset({name.upper(), base.upper()})
        return frozenset({name.upper()})

    def _is_defined(self, name: str) -> bool:
        return bool(self._lookup_raw(name))

    # ---- the public API ------------------------------------------------------------

    def raw(self, name: str) -> str | None:
        """The unexpanded value (None when not defined)."""
        return self._lookup_raw(name)

    def get(self, name: str) -> str | None:
        """The expanded value; None when not defined or empty."""
        raw = self._lookup_raw(name)
        if not raw:
            return None
        value = self._expander.expand(raw, name)
        return value or None

    def where(self, name: str) -> tuple[str, int | None] | None:
        """(source, line) of the definition in force, None for a built-in value."""
        entry = self._entry(name)
        return (entry.source, entry.line) if entry is not None else None

    def get_str(self, name: str, default: str) -> str:
        value = self.get(name)
        return default if value is None else value

    def _evaluated(self, name: str) -> object:
        value = self.get(name)
        if value is None:
            return None
        from condorx.classad import ExprTree

        try:
            return ExprTree(value).eval()
        except Exception:  # not an expression: the caller falls back to its default
            return None

    def get_int(self, name: str, default: int) -> int:
        """Like HTCondor's param_integer: a number or an expression such as ``60*5``."""
        value = self.get(name)
        if value is None:
            return default
        try:
            return int(value.strip())
        except ValueError:
            pass
        result = self._evaluated(name)
        if isinstance(result, bool):
            return int(result)
        if type(result) in (int, float):  # not UNDEFINED/ERROR (an IntEnum)
            return int(result)  # type: ignore[call-overload]
        return default

    def get_float(self, name: str, default: float) -> float:
        value = self.get(name)
        if value is None:
            return default
        try:
            return float(value.strip())
        except ValueError:
            pass
        result = self._evaluated(name)
        if isinstance(result, bool):
            return float(result)
        if type(result) in (int, float):
            return float(result)  # type: ignore[arg-type]
        return default

    def get_bool(self, name: str, default: bool) -> bool:
        value = self.get(name)
        if value is None:
            return default
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        result = self._evaluated(name)
        if isinstance(result, bool):
            return result
        if type(result) in (int, float):
            return result != 0
        return default

    def get_list(self, name: str) -> list[str]:
        """A comma- and/or blank-separated list, like HTCondor's StringList."""
        value = self.get(name)
        if value is None:
            return []
        return [item for item in _LIST_SPLIT.split(value) if item]

    def names(self) -> list[str]:
        """Every name the configuration files and environment define, sorted."""
        return sorted((e.name for e in self._table.entries()), key=str.upper)

    @property
    def warnings(self) -> list[str]:
        return list(self._reader.warnings)

    @property
    def files(self) -> list[str]:
        """The files read, in order."""
        return list(self._reader.files)


def config_path(environ: Mapping[str, str]) -> str | None:
    """The root configuration file: CONDORX_CONFIG, CONDOR_CONFIG, ~/.condorx/condor_config."""
    for var in ("CONDORX_CONFIG", "CONDOR_CONFIG"):
        if environ.get(var):
            return environ[var]
    home = environ.get("HOME") or os.path.expanduser("~")
    candidate = os.path.join(home, ".condorx", "condor_config")
    return candidate if os.path.isfile(candidate) else None


def load_config(
    subsystem: str | None = None,
    local_name: str | None = None,
    path: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Read the configuration a process of `subsystem` sees; raises ConfigError when the
    configuration is refused. With no file at all, the built-in defaults apply."""
    env: Mapping[str, str] = os.environ if environ is None else environ
    chosen = os.fspath(path) if path is not None else config_path(env)
    # HTCondor's ONLY_ENV: no file at all, only the _CONDOR_ variables (the htcondor
    # Python bindings set it in their process when no configuration is found).
    if chosen is None or chosen == "ONLY_ENV":
        return Config.builtin(subsystem=subsystem, local_name=local_name, environ=env)
    # /dev/null is the usual way to say "no file" (HTCondor reads it as empty).
    if not os.path.exists(chosen) or os.path.isdir(chosen):
        raise ConfigError(f"cannot read the configuration file {chosen}: it does not exist")
    return Config.from_file(chosen, subsystem=subsystem, local_name=local_name, environ=env)
