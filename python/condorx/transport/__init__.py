"""The wire, below every client and daemon:

- `wire`: length-prefixed msgpack frames and how a ClassAd travels; `mux`: many streams
  over one connection; `session`: encryption and integrity after the handshake.
- `security`, `tokens`: who is on the other end (FS and IDTOKENS); `connection`: the
  client side of the handshake; `peer`, `limits`: the daemon side's view of a peer and
  what it grants one.
- `locate`: where the pool's daemons and files are, from the configuration.
- `protocol`: each daemon's requests as types, and who may send each.
- `cedar`: HTCondor's own wire protocol, for HTCondor's clients.
"""
