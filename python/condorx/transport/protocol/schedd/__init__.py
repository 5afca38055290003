"""The schedd's requests and replies, one module per concern, so that a tool loads only
the few it sends: each message class costs its making at import, and a
command-line tool pays its imports on every call."""
