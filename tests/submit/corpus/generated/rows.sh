#!/bin/sh
printf 'a 1\nb 2\n\nc 3\n'
