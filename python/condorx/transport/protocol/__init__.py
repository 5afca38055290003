"""The wire protocol as types: each daemon's requests (frozen dataclasses, one module per
daemon), and the table of commands (`table`) that says who may send each."""
