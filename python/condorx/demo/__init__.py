"""The demos: `matching` (a small pool of ads matched in the core), `pool` (README's
first command: a personal pool running real jobs) and `queue` (a personal schedd driven
with the real tools)."""
