"""HTCondor's configuration language, read the way HTCondor 25.14.1 reads it.

    >>> from condorx.language.config import Config
    >>> cfg = Config.from_text("A = 5\\nB = $(A) * 12\\n")
    >>> cfg.get("B"), cfg.get_int("B", 0)
    ('5 * 12', 60)

`load_config()` finds the file (CONDORX_CONFIG, CONDOR_CONFIG, ~/.condorx/condor_config)
or, with none, answers from the built-in defaults alone.
"""

from __future__ import annotations

from condorx.language.config.config import Config, load_config
from condorx.language.config.errors import ConfigError

__all__ = ["Config", "ConfigError", "load_config"]
