"""HTCondor's wire protocol (CEDAR), spoken to HTCondor's own clients: its Python bindings
(`htcondor2`, the legacy `htcondor`) and tools.

- `packets`: messages made of packets, and AES-256-GCM on each packet.
- `codec`: integers, strings and ClassAds inside a message.
- `policy`, `handshake`, `auth`: DC_AUTHENTICATE, its security decision, FS and
  CLAIMTOBE, the ECDH key and the session cache.
- `face`: a daemon's CEDAR connections, each command decoded into condorx's own request
  and served by the daemon's `Server` (same permission table, same handler).
- `collector`, `schedd`: the commands each daemon answers.
"""
