"""The collector: the pool's ads, kept until they expire, and the queries over them
(`service`)."""
