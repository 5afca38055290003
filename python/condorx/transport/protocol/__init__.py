"""The wire protocol as types: each daemon's requests (frozen records, `condorx.record`;
one module per daemon), and the table of commands (`table`) that says who may send each."""
