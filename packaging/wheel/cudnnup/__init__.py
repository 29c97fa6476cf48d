"""cudnnup is a native program; this package only lets ``python -m cudnnup`` find and run it."""
