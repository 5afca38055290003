"""The negotiator: each cycle gathers the pool's ads, matches in the core and hands the
matches out (`service`); `handout` delivers them to startds and schedds, `handed_out`
remembers slots given away until they are re-advertised, `accounting` keeps users'
usage and priorities."""
