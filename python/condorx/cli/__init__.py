"""The command-line tools: thin click commands over the library."""
